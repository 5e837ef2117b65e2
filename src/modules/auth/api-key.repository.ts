// API keys (`fk_…`) of integrations and gateways: stored as the SHA-256 of the key, listed by
// name and prefix, revoked rather than deleted (a revoked key is never answered again).
import type { Selectable } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { insertScoped, type Scope, selectScoped, updateScoped } from '../../platform/db/scope.js';
import type { ApiKeysTable, Db } from '../../platform/db/types.js';
import { parseLanguage } from '../../platform/i18n.js';
import type { AuthContext } from '../../platform/resource/context.js';
import { toAuthUser } from './identity.js';
import { authChanged } from './token-cache.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export async function insertApiKey(
  scope: Scope,
  key: Omit<ApiKeyRow, 'id' | 'tenant_id' | 'last_used_at' | 'revoked_at'>,
): Promise<ApiKeyRow> {
  return insertScoped(scope, 'api_keys', { ...key, last_used_at: null, revoked_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The tenant's keys that were not revoked, expired ones included (their expiry shows why they fail). */
export async function listApiKeys(scope: Scope): Promise<ApiKeyRow[]> {
  return selectScoped(scope, 'api_keys').selectAll().where('revoked_at', 'is', null).orderBy('id').execute();
}

export async function findApiKey(scope: Scope, id: number): Promise<ApiKeyRow | undefined> {
  return selectScoped(scope, 'api_keys')
    .selectAll()
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Holds a live key's row until the caller's transaction ends (PostgreSQL; SQLite's writers take turns). */
export async function lockApiKey(scope: Scope, id: number): Promise<void> {
  if (!isPostgresDb(scope.db)) return;
  await selectScoped(scope, 'api_keys')
    .select('id')
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .forNoKeyUpdate()
    .execute();
}

/** Revokes a key; false when there is none. Every process stops accepting it at once. */
export async function revokeApiKey(scope: Scope, id: number, now: number): Promise<boolean> {
  const result = await updateScoped(scope, 'api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  await authChanged(scope.db);
  return Number(result.numUpdatedRows) > 0;
}

const liveKeyQuery = preparedQuery((db, p: { keyHash: string; now: number }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('users', (join) =>
      join.onRef('users.tenant_id', '=', 'api_keys.tenant_id').onRef('users.id', '=', 'api_keys.user_id'),
    )
    .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .select([
      'api_keys.id as key_id',
      'api_keys.role as key_role',
      'api_keys.expires_at',
      'api_keys.last_used_at',
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
    .where('api_keys.key_hash', '=', p.keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', p.now)]))
    .where('users.deleted_at', 'is', null),
);

/**
 * The live key with this hash as the context of its requests: the owner who made it, with the
 * key's role (never more than that person has now); undefined when revoked, expired or unknown.
 */
export async function findLiveApiKey(
  db: Db,
  keyHash: string,
  now: number,
): Promise<{ auth: AuthContext; expiresAt: number } | undefined> {
  const row = await liveKeyQuery.first(db, { keyHash, now });
  if (!row) return undefined;
  const user = toAuthUser(row);
  const auth: AuthContext = {
    tokenId: 0,
    apiKey: { id: row.key_id, lastUsedAt: row.last_used_at },
    tenant: { id: row.tenant_id, code: row.tenant_code, name: row.tenant_name },
    user: { ...user, role: user.role === 'owner' ? row.key_role : 'staff' },
    language: undefined,
    userLanguage: parseLanguage(row.user_language),
  };
  return { auth, expiresAt: row.expires_at ?? Number.MAX_SAFE_INTEGER };
}

/** Notes a use of the key (its list shows it); the auth context is unchanged, so no authChanged. */
export async function touchApiKey(scope: Scope, id: number, now: number): Promise<void> {
  await updateScoped(scope, 'api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}
