import type { Selectable } from 'kysely';
import { isUniqueViolation } from '../../platform/db/database.js';
import { insertScoped, type Scope, selectScoped, updateScoped } from '../../platform/db/scope.js';
import type { UsersTable } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { authChanged } from '../auth/token-cache.js';

export type UserRow = Selectable<UsersTable>;

export interface UserInsert {
  username: string;
  password_hash: string;
  name: string;
  firstname: string;
  lastname: string;
  picture: string | null;
  role: 'owner' | 'staff';
  language?: 'en' | 'vi' | null;
  email?: string | null;
}

/** A unique violation on users names the field it is about: the e-mail or the username. */
function takenField(err: unknown): AppError {
  const { constraint, message } = err as { constraint?: unknown; message?: unknown };
  const field = `${String(constraint)} ${String(message)}`.includes('email') ? 'email' : 'username';
  return new AppError('http.validation_failed', 422, {}, [{ field, message: 'field.taken' }]);
}

export async function insertUser(scope: Scope, user: UserInsert, now: number): Promise<UserRow> {
  try {
    return await insertScoped(scope, 'users', { ...user, created_at: now, updated_at: now, deleted_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw takenField(err);
    throw err;
  }
}

export async function findUserById(scope: Scope, id: number): Promise<UserRow | undefined> {
  return selectScoped(scope, 'users')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export type UserChanges = Partial<Omit<UserInsert, never>>;

/** Changes a live user; false when there is none. A taken username or e-mail is a 422 naming the field. */
export async function updateUserRow(
  scope: Scope,
  id: number,
  changes: UserChanges,
  now: number,
): Promise<boolean> {
  try {
    const result = await updateScoped(scope, 'users')
      .set({ ...changes, updated_at: now })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    await authChanged(scope.db);
    return Number(result.numUpdatedRows) > 0;
  } catch (err) {
    if (isUniqueViolation(err)) throw takenField(err);
    throw err;
  }
}

/** Soft delete; the username is freed for a new account. */
export async function softDeleteUser(scope: Scope, id: number, now: number): Promise<boolean> {
  const result = await updateScoped(scope, 'users')
    // '#' never passes the username pattern, so the marked name can neither log in nor collide.
    .set({ deleted_at: now, updated_at: now, username: `#deleted-${id}` })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  await authChanged(scope.db);
  return Number(result.numUpdatedRows) > 0;
}
