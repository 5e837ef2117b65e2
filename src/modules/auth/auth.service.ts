import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import { type Clock, toIsoUtc } from '../../platform/clock.js';
import type { Database } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import type { AuthContext, AuthUser } from '../../platform/http/auth.js';
import { type Language, parseLanguage } from '../../platform/i18n.js';
import { newAccessToken, sha256Hex } from '../../platform/ids.js';
import { normalizeUsername } from '../users/user.service.js';
import {
  countAttempts,
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
import { verifyPassword } from './password.js';
import type { TokenCache } from './token-cache.js';

export interface AuthDeps {
  db: Kysely<Database>;
  clock: Clock;
  config: Pick<Config, 'tokenTtlSeconds'>;
}

export const LOGIN_LIMITS = {
  perUser: { max: 10, windowMs: 15 * 60_000 },
  perAddress: { max: 60, windowMs: 60_000 },
} as const;

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
      user: AuthUser;
      tenant: { code: string; name: string };
    };

export async function login(deps: AuthDeps, input: LoginInput, clientAddress: string): Promise<LoginResult> {
  const now = deps.clock.now();
  const tenantCode = input.tenantcode.trim().toLowerCase();
  const username = normalizeUsername(input.username);
  const addressBucket = `ip:${clientAddress}`;
  const userBucket = `user:${tenantCode}:${username}`;

  // Each attempt is recorded before it is counted, so parallel attempts see each other: of N
  // attempts racing, at most `max` find themselves within the limit. A refused attempt is removed
  // again, so hammering a locked account does not extend its lock.
  const addressAttempt = await takeAttempt(deps.db, addressBucket, now, LOGIN_LIMITS.perAddress, false);
  const userAttempt = await takeAttempt(deps.db, userBucket, now, LOGIN_LIMITS.perUser, true).catch(
    async (err) => {
      await forgetAttempt(deps.db, addressAttempt);
      throw err;
    },
  );

  const candidate = await findLoginCandidate(deps.db, tenantCode, username);
  // Always one argon2 verification, so unknown tenant, unknown user and wrong password take the same time.
  const passwordOk = await verifyPassword(candidate?.user.password_hash, input.password);

  if (!passwordOk || !candidate) {
    await pruneAttempts(deps.db, now - LOGIN_LIMITS.perUser.windowMs);
    return { ok: false };
  }
  await markAttemptsSucceeded(deps.db, [addressAttempt, userAttempt]);

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
    },
    tenant: { code: candidate.tenant.code, name: candidate.tenant.name },
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

export async function resolveToken(
  deps: Pick<AuthDeps, 'db' | 'clock'> & { tokenCache?: TokenCache | undefined },
  token: string,
): Promise<AuthContext | null> {
  if (token.length > 200) return null;
  const now = deps.clock.now();
  const cache = deps.tokenCache;
  const version = cache?.version();
  if (cache && version !== undefined) {
    const cached = cache.find(token, version, now);
    if (cached) return cached;
  }
  const found = await findLiveToken(deps.db, sha256Hex(token), now);
  if (!found) return null;
  if (cache && version !== undefined) cache.keep(token, version, found.auth, found.expiresAt);
  return found.auth;
}

export async function logout(deps: Pick<AuthDeps, 'db' | 'clock'>, auth: AuthContext): Promise<void> {
  await revokeAccessToken({ db: deps.db, tenantId: auth.tenant.id }, auth.tokenId, deps.clock.now());
}
