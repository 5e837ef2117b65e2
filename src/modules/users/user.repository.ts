import type { Selectable } from 'kysely';
import { isUniqueViolation } from '../../platform/db/database.js';
import { insertScoped, type Scope, selectScoped } from '../../platform/db/scope.js';
import type { UsersTable } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import type { AuthUser } from '../../platform/http/auth.js';

export type UserRow = Selectable<UsersTable>;

export interface UserInsert {
  username: string;
  password_hash: string;
  name: string;
  firstname: string;
  lastname: string;
  picture: string | null;
  role: 'owner' | 'staff';
}

export async function insertUser(scope: Scope, user: UserInsert, now: number): Promise<UserRow> {
  try {
    return await insertScoped(scope, 'users', { ...user, created_at: now, updated_at: now, deleted_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError('http.validation_failed', 422, {}, [{ field: 'username', message: 'field.taken' }]);
    }
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

export function toAuthUser(row: Pick<UserRow, keyof AuthUser>): AuthUser {
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    firstname: row.firstname,
    lastname: row.lastname,
    picture: row.picture,
    role: row.role,
  };
}
