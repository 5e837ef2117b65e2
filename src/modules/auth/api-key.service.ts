// API keys: an owner makes one for an integration or a gateway (shown once), lists them with their
// last use and revokes them. A key acts as the owner who made it, with the key's role.
import { randomBytes } from 'node:crypto';
import type { Static } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import { isoTime, isoTimeOrNull, parseTimestamp } from '../../platform/dates.js';
import type { Db } from '../../platform/db/types.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import { sha256Hex } from '../../platform/ids.js';
import type { AuthContext, RequestContext } from '../../platform/resource/context.js';
import {
  type ApiKeyRow,
  findApiKey,
  findLiveApiKey,
  insertApiKey,
  listApiKeys,
  lockApiKey,
  revokeApiKey,
  touchApiKey,
} from './api-key.repository.js';
import type { ApiKey, ApiKeyCreate, ApiKeyWithSecret } from './api-key.schemas.js';

/** Every API key starts so; a session token (base64url of 32 bytes) is 43 characters and never has `_` third. */
export const API_KEY_PREFIX = 'fk_';
/** How much of a key its list shows. */
const SHOWN_CHARACTERS = 9;
/** A key's last use is noted at most once a minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function isApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

function present(row: ApiKeyRow): Static<typeof ApiKey> {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    prefix: row.prefix,
    created_by: row.user_id,
    created_at: isoTime(row.created_at),
    expires_at: isoTimeOrNull(row.expires_at),
    last_used_at: isoTimeOrNull(row.last_used_at),
  };
}

export const apiKeyService = {
  async listAll(ctx: RequestContext) {
    return (await listApiKeys(ctx.scope)).map(present);
  },
  async get(ctx: RequestContext, id: number) {
    const row = await findApiKey(ctx.scope, id);
    if (!row) throw notFound();
    return present(row);
  },
  async create(
    ctx: RequestContext,
    input: Static<typeof ApiKeyCreate>,
  ): Promise<Static<typeof ApiKeyWithSecret>> {
    const now = ctx.clock.now();
    const name = input.name.trim();
    const errors = [];
    if (name === '') errors.push({ field: 'name', message: 'field.required' });
    let expiresAt: number | null = null;
    if (input.expires_at !== undefined && input.expires_at !== null) {
      const at = parseTimestamp(input.expires_at);
      if (at === undefined) errors.push({ field: 'expires_at', message: 'field.timestamp' });
      else if (at <= now) errors.push({ field: 'expires_at', message: 'field.future' });
      else expiresAt = at;
    }
    if (errors.length > 0) throw validationFailed(errors);
    const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const row = await insertApiKey(ctx.scope, {
      user_id: ctx.user.id,
      name,
      role: input.role,
      key_hash: sha256Hex(key),
      prefix: key.slice(0, SHOWN_CHARACTERS),
      created_at: now,
      expires_at: expiresAt,
    });
    return { ...present(row), key };
  },
  lock: (ctx: RequestContext, id: number) => lockApiKey(ctx.scope, id),
  async remove(ctx: RequestContext, id: number) {
    if (!(await revokeApiKey(ctx.scope, id, ctx.clock.now()))) throw notFound();
  },
};

/** The context of a request made with this key, or undefined; reading it notes the key's use. */
export async function resolveApiKey(
  deps: { db: Db; clock: Clock },
  key: string,
): Promise<{ auth: AuthContext; expiresAt: number } | undefined> {
  return findLiveApiKey(deps.db, sha256Hex(key), deps.clock.now());
}

/** Whether a request with this context at `now` is to note its key's use (noteApiKeyUse would write). */
export function apiKeyUseDue(auth: AuthContext, now: number): boolean {
  const key = auth.apiKey;
  return key !== undefined && (key.lastUsedAt === null || now - key.lastUsedAt >= LAST_USED_RESOLUTION_MS);
}

/** Notes the use of a key when its last noted use is a minute old (the cached context remembers it). */
export async function noteApiKeyUse(deps: { db: Db; clock: Clock }, auth: AuthContext): Promise<void> {
  const key = auth.apiKey;
  const now = deps.clock.now();
  if (!key || !apiKeyUseDue(auth, now)) return;
  key.lastUsedAt = now;
  await touchApiKey({ db: deps.db, tenantId: auth.tenant.id }, key.id, now);
}
