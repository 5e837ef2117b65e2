// buildApp(deps): the Fastify instance with every route. It never listens; main.ts and tests do.
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { apiDocumentExtras } from './api-document.js';
import type { Config } from './config.js';
import { apiKeyRoutes } from './modules/auth/api-key.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { resolveToken } from './modules/auth/auth.service.js';
import { TokenCache } from './modules/auth/token-cache.js';
import { categoryRoutes } from './modules/categories/category.routes.js';
import { cropTypeRoutes } from './modules/crop-types/crop-type.routes.js';
import { cropRoutes } from './modules/crops/crop.routes.js';
import { diaryCategoryRoutes, diarySubcategoryRoutes, taskRoutes } from './modules/diary/diary.routes.js';
import { harvestRoutes } from './modules/harvest/harvest.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { iotRoutes } from './modules/iot/iot.routes.js';
import { setMailWriting } from './modules/notifications/mail-switch.js';
import { notificationRoutes } from './modules/notifications/notification.routes.js';
import { blockRoutes, farmRoutes, parcelRoutes, zoneRoutes } from './modules/places/places.routes.js';
import { seasonRoutes } from './modules/seasons/season.routes.js';
import { templateRoutes } from './modules/templates/template.routes.js';
import { todayRoutes } from './modules/today/today.routes.js';
import { accountRoutes } from './modules/users/account.routes.js';
import { userRoutes } from './modules/users/user.routes.js';
import type { Resolver } from './modules/webhooks/address-guard.js';
import { webhookRoutes } from './modules/webhooks/webhook.routes.js';
import type { Clock } from './platform/clock.js';
import type { DatabaseHandle } from './platform/db/database.js';
import { PostgresChanges } from './platform/db/postgres-changes.js';
import { Changes } from './platform/db/sqlite/changes.js';
import { sqliteConnectionOf } from './platform/db/sqlite/open.js';
import { registerAuth } from './platform/http/auth.js';
import {
  answerClientError,
  answerFrameworkError,
  installErrorHandling,
} from './platform/http/error-handler.js';
import { registerIdempotency } from './platform/http/idempotency.js';
import { registerInputChecks } from './platform/http/input-checks.js';
import {
  parseQueryString,
  registerFormBodyParser,
  registerJsonBodyParser,
} from './platform/http/lenient-input.js';
import { trackRoutesForMethodNotAllowed } from './platform/http/method-not-allowed.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { ReadCache } from './platform/http/read-cache.js';
import { DEFAULT_WEB_DIST_DIR, webScreenRoutes } from './platform/http/web-screen.js';
import { httpRequestDuration } from './platform/metrics.js';

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
  /** Looks up receiving hosts (webhook URLs, MQTT brokers); the system's resolver unless told. */
  resolver?: Resolver;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  // The API roles build the app (the worker its host, worker-host.ts): each process that raises
  // events knows whether to write mail.
  setMailWriting(deps.config.smtpUrl !== undefined);
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // A client that never finishes its headers or its body is answered 408 and disconnected: held
    // connections would otherwise pile up until the process runs out of file descriptors.
    requestTimeout: deps.config.httpRequestTimeoutMs,
    http: {
      headersTimeout: deps.config.httpHeadersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(5_000, deps.config.httpHeadersTimeoutMs / 2)),
    },
    trustProxy: deps.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, querystringParser: parseQueryString },
    requestIdHeader: false,
    // The framework's own failures (a path it cannot decode, a request Node cannot parse) answer in
    // the error shape too, never echoing the URL.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    },
    ajv: {
      customOptions: {
        allErrors: true,
        allowUnionTypes: true,
        coerceTypes: 'array',
        removeAdditional: false,
        useDefaults: true,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.server.maxConnections = deps.config.httpMaxConnections;

  // A callback hook, as every hook a cached read passes through: no promise per answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  if (deps.config.metricsPort !== undefined) {
    // One observe per request; the route is its pattern (/api/crop/crop/:id), never the raw URL.
    app.addHook('onResponse', (request, reply, done) => {
      httpRequestDuration.observe(
        {
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          status_code: reply.statusCode,
        },
        reply.elapsedTime / 1000,
      );
      done();
    });
  }

  trackRoutesForMethodNotAllowed(app);
  installErrorHandling(app);
  registerInputChecks(app);
  registerJsonBodyParser(app);
  registerFormBodyParser(app);
  const { db } = deps.database;
  const tokenCache = new TokenCache(deps.database.changes);
  if (deps.database.changes instanceof PostgresChanges) {
    deps.database.changes.observe((state, err) => {
      if (state === 'lost') {
        app.log.warn({ err: err?.message }, 'token cache off: its LISTEN connection is lost; reconnecting');
      } else app.log.info('token cache on again: listening for changes');
    });
  }
  registerAuth(app, (token) => resolveToken({ db, clock: deps.clock, tokenCache }, token));
  // A claim older than twice the request timeout (at least a minute) was left by a process that died.
  const takeoverMs = Math.max(60_000, 2 * deps.config.httpRequestTimeoutMs);
  registerIdempotency(app, { db, clock: deps.clock, secretKey: deps.secretKey, takeoverMs });
  await registerOpenApi(app, apiDocumentExtras());

  const core = { db, clock: deps.clock, config: deps.config };
  await app.register(healthRoutes, { deps: { database: deps.database } });
  await app.register(authRoutes, { deps: core });
  await app.register(webhookRoutes, {
    deps: { ...core, secretKey: deps.secretKey, ...(deps.resolver ? { resolver: deps.resolver } : {}) },
  });
  await app.register(webScreenRoutes, { distDir: deps.webDistDir ?? DEFAULT_WEB_DIST_DIR });

  const sqlite = sqliteConnectionOf(db);
  // SQLite only: there every write of this process is seen as it runs (read-cache.ts).
  const readCache =
    deps.config.readCache && sqlite && deps.database.changes instanceof Changes
      ? new ReadCache(sqlite.tableVersions, deps.database.changes, deps.clock)
      : undefined;
  const resources = { db, clock: deps.clock, readCache };
  await app.register(cropRoutes, { deps: resources });
  await app.register(cropTypeRoutes, { deps: resources });
  await app.register(categoryRoutes, { deps: resources });
  await app.register(taskRoutes, { deps: resources });
  await app.register(diaryCategoryRoutes, { deps: resources });
  await app.register(diarySubcategoryRoutes, { deps: resources });
  await app.register(seasonRoutes, { deps: resources });
  await app.register(templateRoutes, { deps: resources });
  await app.register(farmRoutes, { deps: resources });
  await app.register(blockRoutes, { deps: resources });
  await app.register(zoneRoutes, { deps: resources });
  await app.register(parcelRoutes, { deps: resources });
  await app.register(userRoutes, { deps: resources });
  await app.register(accountRoutes, { deps: resources });
  await app.register(apiKeyRoutes, { deps: resources });

  await app.register(iotRoutes, {
    deps: {
      ...resources,
      config: deps.config,
      secretKey: deps.secretKey,
      ...(deps.resolver ? { resolver: deps.resolver } : {}),
    },
  });
  await app.register(harvestRoutes, { deps: resources });
  await app.register(todayRoutes, { deps: resources });
  await app.register(notificationRoutes, {
    deps: { ...resources, smtpConfigured: deps.config.smtpUrl !== undefined },
  });

  return app;
}
