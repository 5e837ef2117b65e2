// Who a user is to the rest of the service: the login name as stored, and the user as requests
// carry it. Users and auth both need these; auth owns them, so neither module imports the other back.
import type { Selectable } from 'kysely';
import type { UsersTable } from '../../platform/db/types.js';
import type { AuthUser } from '../../platform/resource/context.js';

/** Usernames are case-insensitive: stored and compared in lower case. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

export function toAuthUser(row: Pick<Selectable<UsersTable>, keyof AuthUser>): AuthUser {
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
