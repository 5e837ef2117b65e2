// Idempotency-Key on the API's POSTs: the first answer to a tenant's key is kept 24 hours and
// replayed, with `Idempotent-Replayed: true`, to a retry of the same request; the same key with
// another request is a 422, and while the first is still running a 409 with Retry-After. Checked
// after validation (a body Ajv refuses claims nothing, as at Stripe); a 5xx is never kept, so a
// retry runs again. Login is left out: its answer is a fresh token, which is never stored in clear.
// Requests without the header do no work here beyond reading it.
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Clock } from '../clock.js';
import { claimIdempotencyKey, releaseIdempotencyKey, settleIdempotencyKey } from '../db/idempotency-keys.js';
import type { Scope } from '../db/scope.js';
import type { Db } from '../db/types.js';
import { AppError, validationFailed } from '../errors.js';
import { pooledRandomBytes } from '../ids.js';
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

/** Whether a route takes the header: an authenticated POST of the API. */
function isKeyedRoute(route: RouteOptions): boolean {
  const methods = [route.method].flat();
  return methods.includes('POST') && route.url.startsWith('/api/') && route.config?.public !== true;
}

/**
 * Adds the key's steps to the routes that take it, so that other routes run no step of it at all:
 * the claim as the last preHandler step (after the auth hook, the route's own checks and
 * validation, before the handler), keeping the answer in onSend and giving the key back in
 * onResponse when the request ended without an answer kept.
 */
export function registerIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  app.decorateRequest('idempotencyClaim', null);
  const steps = idempotencySteps(deps);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!isKeyedRoute(route)) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), steps.claim];
    route.onSend = [...[route.onSend ?? []].flat(), steps.keepAnswer];
    route.onResponse = [...[route.onResponse ?? []].flat(), steps.releaseUnsettled];
  });
}

function idempotencySteps(deps: IdempotencyDeps) {
  const claim = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
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
  };

  // The answer is kept before it leaves, so a client that has it finds it on a retry.
  const keepAnswer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const held = request.idempotencyClaim;
    if (!held || held.settled) return payload;
    held.settled = true;
    try {
      if (reply.statusCode >= 500) {
        await releaseIdempotencyKey(held.scope, held.key, held.token);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? String(payload) : '';
      const sealed = sealAnswer(deps.secretKey, held.scope, held.key, { headers, body });
      await settleIdempotencyKey(held.scope, held.key, held.token, {
        statusCode: reply.statusCode,
        answer: sealed,
      });
    } catch (err) {
      // The work is done and its answer goes out; the key stays in flight until it is taken over.
      request.log.warn({ err }, 'the answer of an Idempotency-Key could not be kept');
    }
    return payload;
  };

  // A request that ended without passing onSend (the connection went first) gives its key back.
  const releaseUnsettled = async (request: FastifyRequest) => {
    const held = request.idempotencyClaim;
    if (!held || held.settled) return;
    held.settled = true;
    await releaseIdempotencyKey(held.scope, held.key, held.token).catch((err) =>
      request.log.warn({ err }, 'an Idempotency-Key could not be released'),
    );
  };

  return { claim, keepAnswer, releaseUnsettled };
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
  const iv = pooledRandomBytes(12);
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
