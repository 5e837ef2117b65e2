import { type Selectable, sql } from 'kysely';
import { preparedQuery } from '../../platform/db/prepared.js';
import { insertScoped, type Scope, updateScoped } from '../../platform/db/scope.js';
import type { Db, UsersTable } from '../../platform/db/types.js';
import { parseLanguage } from '../../platform/i18n.js';
import type { AuthContext } from '../../platform/resource/context.js';
import { toAuthUser } from './identity.js';
import { authChanged } from './token-cache.js';

export interface LoginCandidate {
  tenant: { id: number; code: string; name: string };
  user: Selectable<UsersTable>;
}

/** The active user with this username in the tenant with this code (login comes before any scope). */
export async function findLoginCandidate(
  db: Db,
  tenantCode: string,
  username: string,
): Promise<LoginCandidate | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('tenants', 'tenants.id', 'users.tenant_id')
    .selectAll('users')
    .select(['tenants.code as tenant_code', 'tenants.name as tenant_name'])
    .where('tenants.code', '=', tenantCode)
    .where('users.username', '=', username)
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const { tenant_code, tenant_name, ...user } = row;
  return { tenant: { id: user.tenant_id, code: tenant_code, name: tenant_name }, user };
}

export async function insertAccessToken(
  scope: Scope,
  token: { userId: number; tokenHash: string; language: string | null; createdAt: number; expiresAt: number },
): Promise<void> {
  await insertScoped(scope, 'access_tokens', {
    user_id: token.userId,
    token_hash: token.tokenHash,
    language: token.language,
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    revoked_at: null,
  }).execute();
}

const liveTokenQuery = preparedQuery((db, p: { tokenHash: string; now: number }) =>
  db
    .selectFrom('access_tokens')
    .innerJoin('users', (join) =>
      join
        .onRef('users.tenant_id', '=', 'access_tokens.tenant_id')
        .onRef('users.id', '=', 'access_tokens.user_id'),
    )
    .innerJoin('tenants', 'tenants.id', 'access_tokens.tenant_id')
    .select([
      'access_tokens.id as token_id',
      'access_tokens.language',
      'access_tokens.expires_at',
      'tenants.id as tenant_id',
      'tenants.code as tenant_code',
      'tenants.name as tenant_name',
      'users.id',
      'users.username',
      'users.name',
      'users.firstname',
      'users.lastname',
      'users.picture',
      'users.role',
      'users.language as user_language',
    ])
    .where('access_tokens.token_hash', '=', p.tokenHash)
    .where('access_tokens.expires_at', '>', p.now)
    .where('access_tokens.revoked_at', 'is', null)
    .where('users.deleted_at', 'is', null),
);

/**
 * The live token with this hash, with its user and tenant, and when it expires; undefined when
 * expired, revoked or unknown.
 */
export async function findLiveToken(
  db: Db,
  tokenHash: string,
  now: number,
): Promise<{ auth: AuthContext; expiresAt: number } | undefined> {
  const row = await liveTokenQuery.first(db, { tokenHash, now });
  if (!row) return undefined;
  const auth: AuthContext = {
    tokenId: row.token_id,
    tenant: { id: row.tenant_id, code: row.tenant_code, name: row.tenant_name },
    user: toAuthUser(row),
    language: parseLanguage(row.language) ?? undefined,
    userLanguage: parseLanguage(row.user_language) ?? undefined,
  };
  return { auth, expiresAt: row.expires_at };
}

export async function revokeAccessToken(scope: Scope, tokenId: number, now: number): Promise<void> {
  await updateScoped(scope, 'access_tokens')
    .set({ revoked_at: now })
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .execute();
  await authChanged(scope.db);
}

/** Ends every session of a user (after a password change), except the one `keepTokenId` names. */
export async function revokeUserTokens(
  scope: Scope,
  userId: number,
  now: number,
  keepTokenId?: number,
): Promise<void> {
  let revoke = updateScoped(scope, 'access_tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keepTokenId !== undefined) revoke = revoke.where('id', '<>', keepTokenId);
  await revoke.execute();
  await authChanged(scope.db);
}

// Login attempts, shared by every API process through the database.

export async function countAttempts(
  db: Db,
  bucket: string,
  since: number,
  failedOnly: boolean,
): Promise<number> {
  let query = db
    .selectFrom('login_attempts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('bucket', '=', bucket)
    .where('at', '>', since);
  if (failedOnly) query = query.where('failed', '=', 1);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function oldestAttemptSince(
  db: Db,
  bucket: string,
  since: number,
  failedOnly: boolean,
): Promise<number | undefined> {
  let query = db
    .selectFrom('login_attempts')
    .select((eb) => eb.fn.min<number>('at').as('oldest'))
    .where('bucket', '=', bucket)
    .where('at', '>', since);
  if (failedOnly) query = query.where('failed', '=', 1);
  const row = await query.executeTakeFirst();
  return row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest);
}

/** Answers the attempt's id. */
export async function recordAttempt(db: Db, bucket: string, failed: boolean, at: number): Promise<number> {
  const row = await db
    .insertInto('login_attempts')
    .values({ bucket, failed: failed ? 1 : 0, at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteAttempt(db: Db, id: number): Promise<void> {
  await db.deleteFrom('login_attempts').where('id', '=', id).execute();
}

export async function markAttemptsSucceeded(db: Db, ids: readonly number[]): Promise<void> {
  await db.updateTable('login_attempts').set({ failed: 0 }).where('id', 'in', ids).execute();
}

export async function pruneAttempts(db: Db, before: number): Promise<void> {
  await db.deleteFrom('login_attempts').where('at', '<', before).execute();
}

/** Failed attempts per bucket whose name starts with `prefix`, since a time, with the latest. */
export async function failedAttemptsByBucket(
  db: Db,
  prefix: string,
  since: number,
): Promise<Array<{ bucket: string; failures: number; lastAt: number }>> {
  // substr rather than LIKE: bucket names hold '%' (URI-encoded) and PostgreSQL's collation orders
  // punctuation in ways a range on the text would not follow.
  const rows = await db
    .selectFrom('login_attempts')
    .select((eb) => [
      'bucket',
      eb.fn.countAll<number>().as('failures'),
      eb.fn.max<number>('at').as('last_at'),
    ])
    .where('at', '>', since)
    .where('failed', '=', 1)
    .where(sql<string>`substr(bucket, 1, ${prefix.length})`, '=', prefix)
    .groupBy('bucket')
    .execute();
  return rows.map((r) => ({ bucket: r.bucket, failures: Number(r.failures), lastAt: Number(r.last_at) }));
}
