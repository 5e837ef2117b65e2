import type { Static } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import { listLive, lockLive } from '../../platform/db/records.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { conflict, type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import { revokeUserTokens } from '../auth/auth.repository.js';
import { normalizeUsername } from '../auth/identity.js';
import { hashPassword } from '../auth/password.js';
import {
  findUserById,
  insertUser,
  softDeleteUser,
  type UserChanges,
  type UserRow,
  updateUserRow,
} from './user.repository.js';
import type { User, UserCreate, UserUpdate } from './user.schemas.js';

export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._@-]{0,99}$/;
export const MIN_PASSWORD_LENGTH = 8;
/** A sane e-mail address: one @, no spaces, a dot in the domain with no empty label. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export interface NewUser {
  username: string;
  password: string;
  name?: string;
  firstname?: string;
  lastname?: string;
  picture?: string | null;
  role: 'owner' | 'staff';
  language?: 'en' | 'vi' | null;
  email?: string | null;
}

/** The stored form of an e-mail field: trimmed, empty as null; a bad address goes to errors. */
export function checkEmail(value: string | null, errors: FieldError[], field = 'email'): string | null {
  const email = value?.trim() ?? '';
  if (email === '') return null;
  if (email.length > 254 || !EMAIL_PATTERN.test(email)) {
    errors.push({ field, message: 'field.format', params: { format: 'e-mail address' } });
  }
  return email;
}

/** The password policy of every password a user is given; a short one goes to errors. */
export function checkPassword(password: string, errors: FieldError[], field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    errors.push({ field, message: 'field.minimum', params: { limit: `${MIN_PASSWORD_LENGTH} characters` } });
  }
}

export async function createUser(deps: { clock: Clock }, scope: Scope, input: NewUser): Promise<UserRow> {
  const username = normalizeUsername(input.username);
  const errors: FieldError[] = [];
  if (!USERNAME_PATTERN.test(username)) errors.push({ field: 'username', message: 'field.pattern' });
  checkPassword(input.password, errors);
  const email = input.email === undefined ? null : checkEmail(input.email, errors);
  if (input.role !== 'owner' && input.role !== 'staff') {
    errors.push({ field: 'role', message: 'field.enum', params: { values: 'owner, staff' } });
  }
  if (errors.length > 0) throw validationFailed(errors);
  const firstname = input.firstname?.trim() ?? '';
  const lastname = input.lastname?.trim() ?? '';
  const name = input.name?.trim() || [firstname, lastname].filter(Boolean).join(' ') || username;
  return insertUser(
    scope,
    {
      username,
      password_hash: await hashPassword(input.password),
      name,
      firstname,
      lastname,
      picture: input.picture ?? null,
      role: input.role,
      // Only when given: a user made without them writes the columns every schema version has.
      ...(input.language ? { language: input.language } : {}),
      ...(email === null ? {} : { email }),
    },
    deps.clock.now(),
  );
}

/** Checks and hashes the changes of an update; only the fields sent. */
export async function prepareUserChanges(input: Partial<NewUser>): Promise<UserChanges> {
  const errors: FieldError[] = [];
  const changes: UserChanges = {};
  if (input.username !== undefined) {
    changes.username = normalizeUsername(input.username);
    if (!USERNAME_PATTERN.test(changes.username))
      errors.push({ field: 'username', message: 'field.pattern' });
  }
  if (input.password !== undefined) checkPassword(input.password, errors);
  if (input.email !== undefined) changes.email = checkEmail(input.email, errors);
  if (errors.length > 0) throw validationFailed(errors);
  if (input.password !== undefined) changes.password_hash = await hashPassword(input.password);
  if (input.role !== undefined) changes.role = input.role;
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.firstname !== undefined) changes.firstname = input.firstname.trim();
  if (input.lastname !== undefined) changes.lastname = input.lastname.trim();
  if (input.picture !== undefined) changes.picture = input.picture;
  if (input.language !== undefined) changes.language = input.language;
  return changes;
}

/**
 * Checks and applies the changes of a user (404 when there is none). A new password ends every
 * session opened with the old one. Used by the API and by `furrow user set-password`.
 */
export async function changeUser(
  deps: { clock: Clock },
  scope: Scope,
  id: number,
  input: Partial<NewUser>,
): Promise<void> {
  const changes = await prepareUserChanges(input);
  await inTransaction(scope, async (tx) => {
    if (!(await updateUserRow(tx, id, changes, deps.clock.now()))) throw notFound();
    if (changes.password_hash !== undefined) await revokeUserTokens(tx, id, deps.clock.now());
  });
}

// The users resource (/api/users): list and read for everyone in the tenant, changes by owners.
// E-mail addresses are the owners' to see: staff's answers leave the field out.
const presentUser = (ctx: RequestContext, row: UserRow): Static<typeof User> => ({
  id: row.id,
  name: row.name,
  firstname: row.firstname,
  lastname: row.lastname,
  picture: row.picture,
  username: row.username,
  role: row.role,
  language: row.language,
  ...(ctx.user.role === 'owner' ? { email: row.email } : {}),
});

export async function getUser(ctx: RequestContext, id: number) {
  const row = await findUserById(ctx.scope, id);
  if (!row) throw notFound();
  return presentUser(ctx, row);
}

export const userResourceService = {
  async list(ctx: RequestContext, query: PageQuery) {
    const { rows, total, hasNext } = await listLive(ctx.scope, 'users', query);
    return { items: rows.map((row) => presentUser(ctx, row)), total, hasNext };
  },
  get: getUser,
  lock: (ctx: RequestContext, id: number) => lockLive(ctx.scope, 'users', id),
  async create(ctx: RequestContext, input: Static<typeof UserCreate>) {
    const row = await createUser(ctx, ctx.scope, { ...input, role: input.role ?? 'staff' });
    return presentUser(ctx, row);
  },
  async update(ctx: RequestContext, id: number, input: Static<typeof UserUpdate>) {
    // An owner cannot demote themself: a tenant must keep an owner who can manage it.
    if (id === ctx.user.id && input.role === 'staff') throw conflict('users.self_change');
    await changeUser(ctx, ctx.scope, id, input);
    return getUser(ctx, id);
  },
  async remove(ctx: RequestContext, id: number) {
    if (id === ctx.user.id) throw conflict('users.self_change');
    if (!(await softDeleteUser(ctx.scope, id, ctx.clock.now()))) throw notFound();
  },
};
