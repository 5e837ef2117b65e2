// The auth hook: every /api route needs a valid access token unless its config says `public`.
// The token comes as `Authorization: Bearer …` or, for the original service's clients, `?token=`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../db/scope.js';
import type { Db } from '../db/types.js';
import { AppError } from '../errors.js';
import { type Language, languageFromAcceptLanguage } from '../i18n.js';
import type { AuthContext } from '../resource/context.js';

export type { AuthContext, AuthUser } from '../resource/context.js';

/**
 * The context of a request made with `token`, or null: at once when it is known here (a cache hit),
 * else a promise.
 */
export type TokenResolver = (token: string) => AuthContext | null | Promise<AuthContext | null>;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on authenticated routes; null on public ones. */
    auth: AuthContext | null;
    language: Language;
  }
  interface FastifyContextConfig {
    /** Route needs no access token. */
    public?: boolean;
  }
}

export function registerAuth(app: FastifyInstance, resolveToken: TokenResolver): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('language', 'en');

  // A callback hook, not an async one: a token known here is checked without a promise, and the
  // request goes on in the same turn.
  app.addHook('onRequest', (request, _reply, done) => {
    const asked = languageFromAcceptLanguage(request.headers['accept-language']);
    request.language = asked ?? 'en';
    if (request.routeOptions.config.public || !request.routeOptions.url?.startsWith('/api/')) {
      done();
      return;
    }
    const token = tokenOf(request);
    const resolved = token ? resolveToken(token) : null;
    if (resolved instanceof Promise) {
      // A rejection without a reason must still end the request (done() with nothing goes on).
      resolved.then(
        (auth) => done(authenticate(request, auth, asked)),
        (err: unknown) =>
          done(err instanceof Error ? err : new Error('the access token could not be checked')),
      );
    } else done(authenticate(request, resolved, asked));
  });
}

/** Sets the request's context from its token's, or answers the error to end it with. */
function authenticate(
  request: FastifyRequest,
  auth: AuthContext | null,
  asked: Language | undefined,
): AppError | undefined {
  if (!auth) return new AppError('auth.token_invalid', 401);
  request.auth = auth;
  // The language chosen at login wins over the browser's default Accept-Language; a request that
  // names no language of ours gets the user's own (account settings).
  request.language = auth.language ?? asked ?? auth.userLanguage ?? 'en';
  return undefined;
}

export function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const query = request.query as Record<string, unknown> | undefined;
  const token = query?.token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** The authenticated context of a request on a protected route. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('auth.token_invalid', 401);
  return request.auth;
}

/** The tenant scope for this request's data access. */
export function scopeOf(request: FastifyRequest, db: Db): Scope {
  return { db, tenantId: authOf(request).tenant.id };
}

/** preHandler for what only a person's session may do (not an API key): a 403 for a key. */
export async function requireSession(request: FastifyRequest): Promise<void> {
  if (authOf(request).apiKey) throw new AppError('auth.session_only', 403);
}

/** preHandler for owner-only actions: staff get a 403. */
export async function requireOwner(request: FastifyRequest): Promise<void> {
  if (authOf(request).user.role !== 'owner') throw new AppError('auth.owner_only', 403);
}
