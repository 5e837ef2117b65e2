// buildApp(deps): the Fastify instance with every route. It never listens; main.ts and tests do.
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { resolveToken } from './modules/auth/auth.service.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { webhookRoutes } from './modules/webhooks/webhook.routes.js';
import type { Clock } from './platform/clock.js';
import type { DatabaseHandle } from './platform/db/database.js';
import { registerAuth } from './platform/http/auth.js';
import { installErrorHandling } from './platform/http/error-handler.js';
import { parseQueryString, registerFormBodyParser } from './platform/http/lenient-input.js';
import { trackRoutesForMethodNotAllowed } from './platform/http/method-not-allowed.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { DEFAULT_WEB_DIST_DIR, webScreenRoutes } from './platform/http/web-screen.js';

export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  /** FURROW_SECRET_KEY (or the key file): encrypts webhook secrets at rest. */
  secretKey: Buffer;
  /** Fastify logger options; false in tests unless asked. */
  logger?: FastifyServerOptions['logger'];
  /** The built management screen served under /manage/; web/dist unless told. */
  webDistDir?: string;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: deps.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, querystringParser: parseQueryString },
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    },
    ajv: {
      customOptions: {
        allErrors: true,
        coerceTypes: 'array',
        removeAdditional: false,
        useDefaults: true,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  trackRoutesForMethodNotAllowed(app);
  installErrorHandling(app);
  registerFormBodyParser(app);
  const { db } = deps.database;
  registerAuth(app, (token) => resolveToken({ db, clock: deps.clock }, token));
  await registerOpenApi(app);

  const core = { db, clock: deps.clock, config: deps.config };
  await app.register(healthRoutes, { deps: { db } });
  await app.register(authRoutes, { deps: core });
  await app.register(webhookRoutes, { deps: { ...core, secretKey: deps.secretKey } });
  await app.register(webScreenRoutes, { distDir: deps.webDistDir ?? DEFAULT_WEB_DIST_DIR });

  return app;
}
