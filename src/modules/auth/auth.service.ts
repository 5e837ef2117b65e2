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
  insertAccessToken,
  oldestAttemptSince,
  pruneAttempts,
  recordAttempt,
  revokeAccessToken,
} from './auth.repository.js';
import { verifyPassword } from './password.js';

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

  await assertUnderLimit(deps.db, addressBucket, now, LOGIN_LIMITS.perAddress, false);
  await assertUnderLimit(deps.db, userBucket, now, LOGIN_LIMITS.perUser, true);

  const candidate = await findLoginCandidate(deps.db, tenantCode, username);
  // Always one argon2 verification, so unknown tenant, unknown user and wrong password take the same time.
  const passwordOk = await verifyPassword(candidate?.user.password_hash, input.password);

  await recordAttempt(deps.db, addressBucket, !passwordOk, now);
  if (!passwordOk || !candidate) {
    await recordAttempt(deps.db, userBucket, true, now);
    await pruneAttempts(deps.db, now - LOGIN_LIMITS.perUser.windowMs);
    return { ok: false };
  }

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

async function assertUnderLimit(
  db: Kysely<Database>,
  bucket: string,
  now: number,
  limit: { max: number; windowMs: number },
  failedOnly: boolean,
): Promise<void> {
  const since = now - limit.windowMs;
  const count = await countAttempts(db, bucket, since, failedOnly);
  if (count < limit.max) return;
  const oldest = (await oldestAttemptSince(db, bucket, since, failedOnly)) ?? now;
  const seconds = Math.max(1, Math.ceil((oldest + limit.windowMs - now) / 1000));
  throw new AppError('auth.too_many_attempts', 429, { seconds }, [], { 'retry-after': String(seconds) });
}

export async function resolveToken(
  deps: Pick<AuthDeps, 'db' | 'clock'>,
  token: string,
): Promise<AuthContext | null> {
  if (token.length > 200) return null;
  return (await findLiveToken(deps.db, sha256Hex(token), deps.clock.now())) ?? null;
}

export async function logout(deps: Pick<AuthDeps, 'db' | 'clock'>, auth: AuthContext): Promise<void> {
  await revokeAccessToken({ db: deps.db, tenantId: auth.tenant.id }, auth.tokenId, deps.clock.now());
}
