// furrow serve: the API, the web screen and the background work, by role.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { BackgroundService } from '../platform/background.js';
import type { Clock } from '../platform/clock.js';
import type { DatabaseHandle } from '../platform/db/database.js';
import type { CheckpointerEvents } from '../platform/db/sqlite/checkpointer.js';
import type { MetricsServer } from '../platform/metrics-server.js';
import { load } from './lazy.js';
import { parseOptions, UsageError } from './options.js';
import { describeDemo } from './tenant.js';

const SERVE_HELP = `Usage: furrow serve [--role all|api|worker] [--migrate]

Starts Furrow. Roles:
  all      API, web screen, delivery worker, offline sweeper, MQTT subscriber, reading
           retention, idempotency-key and LoRaWAN ingest-key pruning and (with SMTP_URL)
           the mail worker in one process (default)
  api      only the HTTP API and web screen
  worker   only the background work (webhook deliveries, offline sweeps, MQTT sources,
           reading retention, expired idempotency keys, LoRaWAN ingest keys older than
           7 days, e-mail when SMTP_URL is set)
--migrate  apply pending migrations on start (always done on SQLite; on PostgreSQL
           run "furrow migrate" once per release, or pass --migrate)
`;

type Role = 'all' | 'api' | 'worker';

export async function serve(args: string[]): Promise<number> {
  const values = parseOptions(args, { role: { type: 'string' }, migrate: { type: 'boolean' } }, SERVE_HELP);
  if (!values) return 0;
  const role = ((values.role as string | undefined) ?? 'all') as Role;
  if (!['all', 'api', 'worker'].includes(role))
    throw new UsageError(`--role must be all, api or worker.\n\n${SERVE_HELP}`);

  const config = (await load.config()).loadConfig();
  const [
    { openDatabase, dialectOf, bulkWorkTimeouts },
    { migrateToLatest, pendingMigrations },
    { systemClock },
    { loggerOptions },
  ] = await Promise.all([load.database(), load.migrate(), load.clock(), load.logging()]);
  const { loadOrCreateSecretKey } = await load.secretKey();
  const secret = loadOrCreateSecretKey(config.secretKey, config.dataDir);
  const { takeSqliteServeLock } = await load.serveLock();
  const serveLock =
    dialectOf(config.databaseUrl) === 'sqlite'
      ? takeSqliteServeLock(config.databaseUrl.slice('sqlite:'.length))
      : undefined;
  // On PostgreSQL a process that delivers records attempts side by side with its claims and API
  // requests: it keeps a larger pool (WORKER_POOL_SIZE) than one that only answers the API (10).
  const maxConnections = role === 'api' ? 10 : (await load.webhookWorker()).WORKER_POOL_SIZE;
  // SQLite: WAL checkpoints on a thread of their own; their failures are logged once the app is up.
  const checkpoints: CheckpointerEvents = {};
  const database = openDatabase(config.databaseUrl, {
    maxConnections,
    timeouts: config.databaseTimeouts,
    preparedStatements: config.databasePreparedStatements,
    backgroundCheckpoints: checkpoints,
  });
  const { startAll, stopAll } = await load.background();
  const services: BackgroundService[] = [];
  let app: FastifyInstance | undefined;
  let metrics: MetricsServer | undefined;
  try {
    if (database.dialect === 'sqlite') {
      await migrateToLatest(database.db);
    } else if (values.migrate) {
      // On a pool of its own, without the statement timeouts that serving uses.
      const migrating = openDatabase(config.databaseUrl, {
        timeouts: bulkWorkTimeouts(config.databaseTimeouts),
      });
      try {
        await migrateToLatest(migrating.db);
      } finally {
        await migrating.close();
      }
    } else {
      const pending = await pendingMigrations(database.db);
      if (pending.length > 0) {
        throw new Error(
          `the database has ${pending.length} pending migration(s); run "furrow migrate" first (or serve --migrate)`,
        );
      }
    }
    // The demo tenant is for trying Furrow out: only on the embedded SQLite database, never on a
    // PostgreSQL server (where a tenant with a printed password would be a hole), and FURROW_DEMO=off.
    if (role !== 'worker' && config.demo && database.dialect === 'sqlite')
      await createDemoTenantIfEmpty(database, config, systemClock);

    app =
      role === 'worker'
        ? (await load.workerHost()).buildWorkerHost({ config, logger: loggerOptions(config.logLevel) })
        : await (await load.app()).buildApp({
            config,
            database,
            clock: systemClock,
            secretKey: secret.key,
            logger: loggerOptions(config.logLevel),
          });
    const appLog = app.log;
    checkpoints.onError = (message) => appLog.warn({ err: message }, 'SQLite WAL checkpoint failed; retried');
    if (secret.source === 'created') app.log.info(`created a new secret key in ${config.dataDir}/secret.key`);
    if (config.webhookAllowPrivateHosts.length > 0) {
      app.log.warn(
        { hosts: config.webhookAllowPrivateHosts },
        'WEBHOOK_ALLOW_PRIVATE_HOSTS exempts these hosts from the public-address rule',
      );
    }
    if (config.mqttAllowPrivateHosts.length > 0) {
      app.log.warn(
        { hosts: config.mqttAllowPrivateHosts },
        'MQTT_ALLOW_PRIVATE_HOSTS exempts these broker hosts from the public-address rule',
      );
    }
    if (config.webhookCaFile) {
      app.log.warn(
        { file: config.webhookCaFile },
        'WEBHOOK_CA_FILE adds these certificates to the ones trusted for webhook receivers',
      );
    }
    if (config.smtpUrl) {
      const { redactSmtpUrl } = await load.config();
      app.log.info({ smtp: redactSmtpUrl(config.smtpUrl), from: config.mailFrom }, 'e-mail notifications on');
    } else {
      app.log.info('e-mail notifications off: SMTP_URL is not set, so no mail is written or sent');
    }
    // Background work of roles all and worker; one line per service.
    if (role !== 'api') {
      const { createDeliveryWorker } = await load.webhookWorker();
      services.push(
        createDeliveryWorker({
          database,
          clock: systemClock,
          config,
          secretKey: secret.key,
          logger: app.log.child({ service: 'webhooks' }),
        }),
      );
      const { createOfflineSweeper } = await load.offlineSweeper();
      services.push(
        createOfflineSweeper({
          db: database.db,
          clock: systemClock,
          intervalMs: config.iotSweepIntervalMs,
          logger: app.log.child({ service: 'iot-offline-sweeper' }),
        }),
      );
      const { createMqttSubscriber } = await load.mqttSubscriber();
      services.push(
        createMqttSubscriber({
          db: database.db,
          clock: systemClock,
          secretKey: secret.key,
          config,
          logger: app.log.child({ service: 'mqtt' }),
        }),
      );
      const { createIdempotencyPruning } = await load.idempotencyPruning();
      services.push(
        createIdempotencyPruning({
          db: database.db,
          clock: systemClock,
          logger: app.log.child({ service: 'idempotency-key-pruning' }),
        }),
      );
      if (config.smtpUrl) {
        const { createMailWorker } = await load.mailWorker();
        services.push(
          createMailWorker({
            db: database.db,
            clock: systemClock,
            smtpUrl: config.smtpUrl,
            mailFrom: config.mailFrom,
            logger: app.log.child({ service: 'mail' }),
          }),
        );
      }
      const { createIngestKeyPruning } = await load.ingestKeyPruning();
      services.push(
        createIngestKeyPruning({
          db: database.db,
          clock: systemClock,
          logger: app.log.child({ service: 'iot-ingest-key-pruning' }),
        }),
      );
      if (config.iotRawRetentionDays > 0) {
        const { createReadingRetention } = await load.readingRetention();
        services.push(
          createReadingRetention({
            db: database.db,
            clock: systemClock,
            retentionDays: config.iotRawRetentionDays,
            logger: app.log.child({ service: 'iot-reading-retention' }),
          }),
        );
      }
    }
    if (config.metricsPort !== undefined) {
      const [{ startMetricsServer }, { registerQueueDepthGauge }] = await Promise.all([
        load.metricsServer(),
        load.deliveryMetrics(),
      ]);
      registerQueueDepthGauge({ db: database.db, clock: systemClock });
      metrics = await startMetricsServer({
        host: config.metricsHost,
        port: config.metricsPort,
        logger: app.log.child({ service: 'metrics' }),
      });
      app.log.info(`metrics for Prometheus at http://${config.metricsHost}:${metrics.port}/metrics`);
    }
    if (role !== 'worker') {
      await app.listen({ port: config.port, host: config.host });
    } else {
      await app.ready();
    }
    await startAll(services);
    const { isDatabaseUnavailable } = await load.unavailable();
    const log = app.log;
    // The database going away must not end the process. Every path handles it; should a promise
    // of one still fail unobserved, it is logged and the process keeps serving. Any other unhandled
    // rejection still ends it, as Node does by default.
    process.on('unhandledRejection', (reason) => {
      if (!isDatabaseUnavailable(reason)) throw reason;
      log.error({ err: (reason as Error).message }, 'a database error was not handled');
    });
    app.log.info(
      { role, database: database.dialect },
      role === 'worker'
        ? 'furrow worker started'
        : `furrow listening on http://${config.host}:${config.port} (API reference at /docs)`,
    );
  } catch (err) {
    await stopAll(services);
    await metrics?.close();
    await app?.close();
    await database.close();
    serveLock?.release();
    throw err;
  }

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      app?.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  // Requests and deliveries in flight finish before the database closes.
  await Promise.all([app.close(), stopAll(services), metrics?.close()]);
  await database.close();
  serveLock?.release();
  return 0;
}

async function createDemoTenantIfEmpty(
  database: DatabaseHandle,
  config: Config,
  clock: Clock,
): Promise<void> {
  const [{ countTenants, findTenantByCode }, { createTenantWithOwner }, { loadDemoData }] = await Promise.all(
    [load.tenants(), load.tenantService(), load.demoData()],
  );
  if ((await countTenants(database.db)) > 0) return;
  const password = randomBytes(12).toString('base64url');
  let created: { tenant: { id: number }; ownerId: number };
  try {
    created = await createTenantWithOwner(
      { db: database.db, clock },
      {
        code: 'demo',
        name: 'Demo Farm',
        owner: { username: 'owner', password, firstname: 'Demo', lastname: 'Owner' },
      },
    );
  } catch (err) {
    // Another process created it at the same moment: that is fine.
    if ((await findTenantByCode(database.db, 'demo')) === undefined) throw err;
    return;
  }
  // The demo data loads in its own transaction; if it fails, the owner's one-time password must
  // still be shown, or nobody could ever log in to the tenant just created.
  let demoLine: string;
  try {
    const demo = await loadDemoData(
      { clock },
      { db: database.db, tenantId: created.tenant.id },
      created.ownerId,
    );
    demoLine = describeDemo(demo).trimEnd();
  } catch (err) {
    demoLine = `The demo data could not be loaded (${(err as Error).message}); the tenant and its owner exist.`;
  }
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  process.stdout.write(
    [
      '',
      'Created tenant "demo" with owner "owner".',
      demoLine,
      `  password: ${password}`,
      '  (shown once; create more users with "furrow user create")',
      '',
      'Log in:',
      `  curl -s -X POST ${base}/api/auth/login -H 'Content-Type: application/json' \\`,
      `    -d '{"tenantcode":"demo","username":"owner","password":"${password}"}'`,
      '',
    ].join('\n'),
  );
}
