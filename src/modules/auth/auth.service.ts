import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import { type Clock, toIsoUtc } from '../../platform/clock.js';
import type { Database } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { type Language, parseLanguage } from '../../platform/i18n.js';
import { newAccessToken, sha256Hex } from '../../platform/ids.js';
import type { AuthContext, AuthUser } from '../../platform/resource/context.js';
import { isStorableText } from '../../platform/text.js';
import { apiKeyUseDue, isApiKey, noteApiKeyUse, resolveApiKey } from './api-key.service.js';
import {
  countAttempts,
  failedAttemptsByBucket,
  findLiveToken,
  findLoginCandidate,
  deleteAttempt as forgetAttempt,
  insertAccessToken,
  markAttemptsSucceeded,
  oldestAttemptSince,
  pruneAttempts,
  recordAttempt,
  revokeAccessToken,
} from './auth.repository.js';
import { normalizeUsername } from './identity.js';
import { verifyPassword } from './password.js';
import type { TokenCache } from './token-cache.js';

export interface AuthDeps {
  db: Kysely<Database>;
  clock: Clock;
  config: Pick<Config, 'tokenTtlSeconds'>;
}

/**
 * Login limits. Failures are counted per tenant + username + client address, so a stranger who
 * guesses passwords locks out only their own address; a higher cap per tenant + username from
 * every address stops a guesser spread over many addresses; and one address may try 60 times a
 * minute in all. A blocked login answers 429 with Retry-After, even with the right password.
 */
export const LOGIN_LIMITS = {
  perUserAndAddress: { max: 10, windowMs: 15 * 60_000 },
  perUser: { max: 100, windowMs: 15 * 60_000 },
  perAddress: { max: 60, windowMs: 60_000 },
} as const;

/** Failed logins are kept this long, for the owners' notice of accounts under attack. */
export const LOGIN_HISTORY_MS = 24 * 3_600_000;

export interface LoginInput {
  tenantcode: string;
  username: string;
  password: string;
  language?: string | undefined;
}

export type LoginResult =
  | { ok: false }
  | {
      ok: true;
      token: string;
      expiresIn: number;
      expiresAt: string;
      language: Language | undefined;
      user: AuthUser & { email: string };
      tenant: { code: string; name: string };
    };

export async function login(deps: AuthDeps, input: LoginInput, clientAddress: string): Promise<LoginResult> {
  const now = deps.clock.now();
  // A NUL or an unpaired surrogate cannot be stored (nor looked up on PostgreSQL); no tenant code or
  // username has one, so such a login is answered "incorrect" like any unknown name.
  const storable = isStorableText(input.tenantcode) && isStorableText(input.username);
  const tenantCode = storable ? input.tenantcode.trim().toLowerCase() : '';
  const username = storable ? normalizeUsername(input.username) : '';
  const buckets = loginBuckets(tenantCode, username, clientAddress);

  // Each attempt is recorded before it is counted, so parallel attempts see each other: of N
  // attempts racing, at most `max` find themselves within the limit. A refused attempt is removed
  // again, so hammering a locked account does not extend its lock.
  const taken: number[] = [];
  try {
    taken.push(await takeAttempt(deps.db, buckets.address, now, LOGIN_LIMITS.perAddress, false));
    taken.push(await takeAttempt(deps.db, buckets.userAndAddress, now, LOGIN_LIMITS.perUserAndAddress, true));
    taken.push(await takeAttempt(deps.db, buckets.user, now, LOGIN_LIMITS.perUser, true));
  } catch (err) {
    for (const id of taken) await forgetAttempt(deps.db, id);
    throw err;
  }

  const candidate = storable ? await findLoginCandidate(deps.db, tenantCode, username) : undefined;
  // Always one argon2 verification, so unknown tenant, unknown user and wrong password take the same time.
  const passwordOk = await verifyPassword(candidate?.user.password_hash, input.password);

  if (!passwordOk || !candidate) {
    await pruneAttempts(deps.db, now - LOGIN_HISTORY_MS);
    return { ok: false };
  }
  await markAttemptsSucceeded(deps.db, taken);

  const token = newAccessToken();
  const expiresAt = now + deps.config.tokenTtlSeconds * 1000;
  const language = parseLanguage(input.language);
  await insertAccessToken(
    { db: deps.db, tenantId: candidate.tenant.id },
    {
      userId: candidate.user.id,
      tokenHash: sha256Hex(token),
      language: language ?? null,
      createdAt: now,
      expiresAt,
    },
  );
  return {
    ok: true,
    token,
    expiresIn: deps.config.tokenTtlSeconds,
    expiresAt: toIsoUtc(expiresAt),
    language,
    user: {
      id: candidate.user.id,
      username: candidate.user.username,
      name: candidate.user.name,
      firstname: candidate.user.firstname,
      lastname: candidate.user.lastname,
      picture: candidate.user.picture,
      role: candidate.user.role,
      email: candidate.user.email ?? '',
    },
    tenant: { code: candidate.tenant.code, name: candidate.tenant.name },
  };
}

/**
 * The buckets one login attempt counts in. Names are URI-encoded, so a username cannot reach into
 * another bucket's range (the owners' notice reads a tenant's buckets by prefix).
 */
export function loginBuckets(tenantCode: string, username: string, clientAddress: string) {
  const user = `${encodeURIComponent(tenantCode)}:${encodeURIComponent(username)}`;
  return {
    address: `ip:${clientAddress}`,
    user: `user:${user}`,
    userAndAddress: `user-ip:${user}|${encodeURIComponent(clientAddress)}`,
  };
}

/**
 * Records an attempt (as failed until it succeeds) and counts the bucket's attempts in the window,
 * this one included; past the limit the attempt is removed again and answered 429.
 */
async function takeAttempt(
  db: Kysely<Database>,
  bucket: string,
  now: number,
  limit: { max: number; windowMs: number },
  failedOnly: boolean,
): Promise<number> {
  const id = await recordAttempt(db, bucket, true, now);
  const since = now - limit.windowMs;
  const count = await countAttempts(db, bucket, since, failedOnly);
  if (count <= limit.max) return id;
  await forgetAttempt(db, id);
  const oldest = (await oldestAttemptSince(db, bucket, since, failedOnly)) ?? now;
  const seconds = Math.max(1, Math.ceil((oldest + limit.windowMs - now) / 1000));
  throw new AppError('auth.too_many_attempts', 429, { seconds }, [], { 'retry-after': String(seconds) });
}

/** Failed logins for one username in the last LOGIN_HISTORY_MS that make the owners' notice. */
export const LOGIN_ALERT_AT = LOGIN_LIMITS.perUserAndAddress.max;

export interface LoginAlert {
  username: string;
  failedAttempts: number;
  addresses: number;
  lastFailedAt: number;
  /** Until when logins from every address are refused (the all-address cap), or null. */
  lockedUntil: number | null;
}

/**
 * Usernames of the tenant with at least LOGIN_ALERT_AT failed logins in the last 24 hours, most
 * failures first (at most 20): what the farm app shows owners as accounts under attack.
 */
export async function loginAlerts(
  deps: Pick<AuthDeps, 'db' | 'clock'>,
  tenantCode: string,
): Promise<LoginAlert[]> {
  const now = deps.clock.now();
  const since = now - LOGIN_HISTORY_MS;
  const tenant = encodeURIComponent(tenantCode);
  const byUser = await failedAttemptsByBucket(deps.db, `user:${tenant}:`, since);
  const flagged = byUser.filter((b) => b.failures >= LOGIN_ALERT_AT);
  if (flagged.length === 0) return [];
  const addresses = new Map<string, number>();
  for (const { bucket } of await failedAttemptsByBucket(deps.db, `user-ip:${tenant}:`, since)) {
    const user = bucket.slice(`user-ip:${tenant}:`.length).split('|')[0] ?? '';
    addresses.set(user, (addresses.get(user) ?? 0) + 1);
  }
  const alerts: LoginAlert[] = [];
  for (const b of flagged.sort((x, y) => y.failures - x.failures).slice(0, 20)) {
    const user = b.bucket.slice(`user:${tenant}:`.length);
    const { max, windowMs } = LOGIN_LIMITS.perUser;
    const recent = await countAttempts(deps.db, b.bucket, now - windowMs, true);
    const oldest =
      recent >= max ? await oldestAttemptSince(deps.db, b.bucket, now - windowMs, true) : undefined;
    alerts.push({
      username: decodeURIComponent(user),
      failedAttempts: b.failures,
      addresses: addresses.get(user) ?? 0,
      lastFailedAt: b.lastAt,
      lockedUntil: oldest === undefined ? null : oldest + windowMs,
    });
  }
  return alerts;
}

/**
 * The context of a request made with this token, or null. A token resolved before, with nothing of
 * it changed since (TokenCache), is answered at once, without a promise: the request's auth hook
 * then runs to its end in the same turn. Anything else (a read, a key's use to note) answers a
 * promise.
 */
export function resolveToken(
  deps: Pick<AuthDeps, 'db' | 'clock'> & { tokenCache?: TokenCache | undefined },
  token: string,
): AuthContext | null | Promise<AuthContext | null> {
  if (token.length > 200) return null;
  const now = deps.clock.now();
  const cache = deps.tokenCache;
  const version = cache?.version();
  const cached = cache && version !== undefined ? cache.find(token, version, now) : undefined;
  if (cached && !apiKeyUseDue(cached, now)) return cached;
  return resolveTokenLater(deps, token, cached, version, now);
}

async function resolveTokenLater(
  deps: Pick<AuthDeps, 'db' | 'clock'> & { tokenCache?: TokenCache | undefined },
  token: string,
  cached: AuthContext | undefined,
  version: number | undefined,
  now: number,
): Promise<AuthContext | null> {
  let auth = cached;
  if (!auth) {
    const found = isApiKey(token)
      ? await resolveApiKey(deps, token)
      : await findLiveToken(deps.db, sha256Hex(token), now);
    if (!found) return null;
    if (deps.tokenCache && version !== undefined)
      deps.tokenCache.keep(token, version, found.auth, found.expiresAt);
    auth = found.auth;
  }
  await noteApiKeyUse(deps, auth);
  return auth;
}

export async function logout(deps: Pick<AuthDeps, 'db' | 'clock'>, auth: AuthContext): Promise<void> {
  await revokeAccessToken({ db: deps.db, tenantId: auth.tenant.id }, auth.tokenId, deps.clock.now());
}
