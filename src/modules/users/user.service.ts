import type { Clock } from '../../platform/clock.js';
import type { Scope } from '../../platform/db/scope.js';
import { type FieldError, validationFailed } from '../../platform/errors.js';
import { hashPassword } from '../auth/password.js';
import { insertUser, type UserChanges, type UserRow } from './user.repository.js';

export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._@-]{0,99}$/;
export const MIN_PASSWORD_LENGTH = 8;

export interface NewUser {
  username: string;
  password: string;
  name?: string;
  firstname?: string;
  lastname?: string;
  picture?: string | null;
  role: 'owner' | 'staff';
}

/** Usernames are case-insensitive: stored and compared in lower case. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

export async function createUser(deps: { clock: Clock }, scope: Scope, input: NewUser): Promise<UserRow> {
  const username = normalizeUsername(input.username);
  const errors: FieldError[] = [];
  if (!USERNAME_PATTERN.test(username)) errors.push({ field: 'username', message: 'field.pattern' });
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    errors.push({
      field: 'password',
      message: 'field.minimum',
      params: { limit: `${MIN_PASSWORD_LENGTH} characters` },
    });
  }
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
  if (input.password !== undefined && input.password.length < MIN_PASSWORD_LENGTH) {
    errors.push({
      field: 'password',
      message: 'field.minimum',
      params: { limit: `${MIN_PASSWORD_LENGTH} characters` },
    });
  }
  if (errors.length > 0) throw validationFailed(errors);
  if (input.password !== undefined) changes.password_hash = await hashPassword(input.password);
  if (input.role !== undefined) changes.role = input.role;
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.firstname !== undefined) changes.firstname = input.firstname.trim();
  if (input.lastname !== undefined) changes.lastname = input.lastname.trim();
  if (input.picture !== undefined) changes.picture = input.picture;
  return changes;
}
