// Idempotency-Key on the API's POSTs: the first answer to a tenant's key is kept 24 hours and
// replayed, with `Idempotent-Replayed: true`, to a retry of the same request; the same key with
// another request is a 422, and while the first is still running a 409 with Retry-After. Checked
// after validation (a body Ajv refuses claims nothing, as at Stripe); a 5xx is never kept, so a
// retry runs again. Login is left out: its answer is a fresh token, which is never stored in clear.
// Requests without the header do no work here beyond reading it.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { claimIdempotencyKey, releaseIdempotencyKey, settleIdempotencyKey } from '../db/idempotency-keys.js';
import type { Scope } from '../db/scope.js';
import type { Db } from '../db/types.js';
import { AppError, validationFailed } from '../errors.js';
import { scopeOf } from './auth.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** How long a key and its answer are kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** Seconds a client is asked to wait while the key's first request runs. */
export const IN_USE_RETRY_AFTER_SECONDS = 1;
/** The answer headers a replay repeats; the others are the new request's own (x-request-id). */
const KEPT_HEADERS = ['content-type', 'location', 'etag', 'preference-applied', 'retry-after'];
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** FURROW_SECRET_KEY: kept answers are encrypted under it (an API key is shown once). */
  secretKey: Buffer;
  /** An in-flight claim older than this was left by a process that died and is taken over. */
  takeoverMs: number;
}

interface HeldClaim {
  scope: Scope;
  key: string;
  token: string;
  settled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds, until its answer is kept or the key released. */
    idempotencyClaim: HeldClaim | null;
  }
}

/** Whether a request is one the header applies to: an authenticated POST of the API. */
function isKeyedRoute(request: FastifyRequest): boolean {
  return (
    request.method === 'POST' &&
    request.routeOptions.url?.startsWith('/api/') === true &&
    request.routeOptions.config.public !== true
  );
}

export function registerIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  app.decorateRequest('idempotencyClaim', null);

  // preHandler: after the auth hook, the routes' own checks and validation, before the handler.
  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !isKeyedRoute(request)) return;
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (!KEY_PATTERN.test(key)) {
      throw validationFailed([{ field: IDEMPOTENCY_HEADER, message: 'field.idempotency_key' }]);
    }
    const scope = scopeOf(request, deps.db);
    const outcome = await claimIdempotencyKey(scope, {
      key,
      requestHash: requestHash(request),
      now: deps.clock.now(),
      ttlMs: IDEMPOTENCY_TTL_MS,
      takeoverMs: deps.takeoverMs,
    });
    switch (outcome.kind) {
      case 'claimed':
        request.idempotencyClaim = { scope, key, token: outcome.token, settled: false };
        return;
      case 'reused':
        throw new AppError('idempotency.key_reused', 422);
      case 'in_use':
        throw new AppError('idempotency.key_in_use', 409, { seconds: IN_USE_RETRY_AFTER_SECONDS }, [], {
          'retry-after': String(IN_USE_RETRY_AFTER_SECONDS),
        });
      case 'replay':
        return replay(reply, outcome.statusCode, openAnswer(deps.secretKey, scope, key, outcome.answer));
    }
  });

  // onSend: the answer is kept before it leaves, so a client that has it finds it on retry.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim || claim.settled) return payload;
    claim.settled = true;
    try {
      if (reply.statusCode >= 500) {
        await releaseIdempotencyKey(claim.scope, claim.key, claim.token);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? String(payload) : '';
      const sealed = sealAnswer(deps.secretKey, claim.scope, claim.key, { headers, body });
      await settleIdempotencyKey(claim.scope, claim.key, claim.token, {
        statusCode: reply.statusCode,
        answer: sealed,
      });
    } catch (err) {
      // The work is done and its answer goes out; the key stays in flight until it is taken over.
      request.log.warn({ err }, 'the answer of an Idempotency-Key could not be kept');
    }
    return payload;
  });

  // A request that ended without passing onSend (the connection went first) gives its key back.
  app.addHook('onResponse', async (request) => {
    const claim = request.idempotencyClaim;
    if (!claim || claim.settled) return;
    claim.settled = true;
    await releaseIdempotencyKey(claim.scope, claim.key, claim.token).catch((err) =>
      request.log.warn({ err }, 'an Idempotency-Key could not be released'),
    );
  });
}

/** SHA-256 of method, path (without the query) and the body as parsed. */
function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? request.url;
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  return createHash('sha256').update(`${request.method}\n${path}\n${body}`).digest('hex');
}

interface KeptAnswer {
  headers: Record<string, string>;
  body: string;
}

function replay(reply: FastifyReply, statusCode: number, answer: KeptAnswer): FastifyReply {
  reply.code(statusCode).headers(answer.headers).header(REPLAYED_HEADER.toLowerCase(), 'true');
  // A Buffer is sent as it is: the body was serialized by the first request's schema.
  return reply.send(Buffer.from(answer.body, 'utf8'));
}

// AES-256-GCM with the tenant and key as associated data, so an answer cannot be moved to another key.
function sealAnswer(secretKey: Buffer, scope: Scope, key: string, answer: KeptAnswer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKey, iv);
  cipher.setAAD(Buffer.from(`${scope.tenantId}:${key}`, 'utf8'));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

function openAnswer(secretKey: Buffer, scope: Scope, key: string, stored: string): KeptAnswer {
  const raw = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', secretKey, raw.subarray(0, 12), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(`${scope.tenantId}:${key}`, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  return JSON.parse(plain) as KeptAnswer;
}
