// The furrow CLI: serve (with roles), migrate, tenant create, user create.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { BackgroundService } from './platform/background.js';
import type { Clock } from './platform/clock.js';
import type { DatabaseHandle } from './platform/db/database.js';

// Commands load the service lazily, so `furrow --help` and usage errors answer at once.
const load = {
  config: () => import('./config.js'),
  database: () => import('./platform/db/database.js'),
  unavailable: () => import('./platform/db/unavailable.js'),
  migrate: () => import('./platform/db/migrate.js'),
  tenants: () => import('./modules/tenants/tenant.repository.js'),
  tenantService: () => import('./modules/tenants/tenant.service.js'),
  userService: () => import('./modules/users/user.service.js'),
  demoData: () => import('./modules/demo/demo-data.js'),
  app: () => import('./app.js'),
  clock: () => import('./platform/clock.js'),
  errors: () => import('./platform/errors.js'),
  i18n: () => import('./platform/i18n.js'),
  logging: () => import('./platform/http/logging.js'),
  secretKey: () => import('./platform/secret-key.js'),
  background: () => import('./platform/background.js'),
  serveLock: () => import('./platform/db/serve-lock.js'),
  webhookWorker: () => import('./modules/webhooks/worker.js'),
  offlineSweeper: () => import('./modules/iot/offline-sweeper.js'),
};

type Command = (args: string[]) => Promise<number>;

const USAGE = `furrow — farm management service

Usage:
  furrow serve [--role all|api|worker] [--migrate]
  furrow migrate
  furrow tenant create --code CODE --name NAME --owner USERNAME --password PASSWORD [--demo]
  furrow user create --tenant CODE --username USERNAME --password PASSWORD [--role owner|staff]

Run "furrow COMMAND --help" for a command's options. Configuration comes from environment
variables (PORT, HOST, DATABASE_URL, FURROW_SECRET_KEY, TOKEN_TTL_SECONDS, ...); see README.md.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const commands: Record<string, Command> = {
    serve,
    migrate,
    tenant: (args) => subcommand('tenant', { create: tenantCreate }, args),
    user: (args) => subcommand('user', { create: userCreate }, args),
  };
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  const run = commands[command];
  if (!run) {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  try {
    return await run(rest);
  } catch (err) {
    return await reportFailure(err);
  }
}

async function reportFailure(err: unknown): Promise<number> {
  const [{ AggregateConfigError }, { AppError }, { translate }] = await Promise.all([
    load.config(),
    load.errors(),
    load.i18n(),
  ]);
  if (err instanceof AggregateConfigError) {
    process.stderr.write(`${err.message}\n`);
    return 78; // EX_CONFIG
  }
  if (err instanceof UsageError) {
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  if (err instanceof AppError) {
    const fields = err.fieldErrors
      .map((f) => `  - ${f.field} ${translate(f.message, 'en', f.params)}`)
      .join('\n');
    process.stderr.write(`${translate(err.code, 'en', err.params)}${fields ? `\n${fields}` : ''}\n`);
    return 1;
  }
  process.stderr.write(`furrow: ${(err as Error)?.message ?? String(err)}\n`);
  return 1;
}

class UsageError extends Error {}

async function subcommand(name: string, subs: Record<string, Command>, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const run = sub ? subs[sub] : undefined;
  if (!run) {
    if (sub === '--help' || sub === '-h') {
      process.stdout.write(
        `Usage: furrow ${name} ${Object.keys(subs).join('|')} [options]; --help on each.\n`,
      );
      return 0;
    }
    throw new UsageError(`Usage: furrow ${name} ${Object.keys(subs).join('|')} [options]`);
  }
  return run(rest);
}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

/** Parsed options, or undefined when --help was asked for (and printed). */
function parseOptions<T extends OptionSpec>(
  args: string[],
  options: T,
  help: string,
): Record<keyof T, string | boolean | undefined> | undefined {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
      strict: true,
    }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${help}`);
  }
  if (values.help) {
    process.stdout.write(help);
    return undefined;
  }
  return values as Record<keyof T, string | boolean | undefined>;
}

function requireOption(values: Record<string, unknown>, name: string, help: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`Missing --${name}.\n\n${help}`);
  return value;
}

/** The database for a command; these migrate first, so statements may take as long as they need. */
async function withDatabase<R>(config: Config, fn: (database: DatabaseHandle) => Promise<R>): Promise<R> {
  const { openDatabase, bulkWorkTimeouts } = await load.database();
  const database = openDatabase(config.databaseUrl, { timeouts: bulkWorkTimeouts(config.databaseTimeouts) });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

const MIGRATE_HELP = `Usage: furrow migrate

Applies every pending database migration to DATABASE_URL (SQLite or PostgreSQL).
Safe to run from several processes at once.
`;

async function migrate(args: string[]): Promise<number> {
  if (!parseOptions(args, {}, MIGRATE_HELP)) return 0;
  const config = (await load.config()).loadConfig();
  const { migrateToLatest } = await load.migrate();
  await withDatabase(config, async ({ db }) => {
    const results = await migrateToLatest(db);
    process.stdout.write(
      results.length === 0
        ? 'Database is up to date.\n'
        : results.map((r) => `applied ${r.migrationName}\n`).join(''),
    );
  });
  return 0;
}

const TENANT_CREATE_HELP = `Usage: furrow tenant create --code CODE --name NAME --owner USERNAME --password PASSWORD [--demo]

Creates a tenant (one farm business) and its owner account.
  --code        tenant code used at login (lowercase letters, digits, hyphens)
  --name        display name of the farm business
  --owner       username of the owner
  --password    owner's password (at least 8 characters)
  --firstname, --lastname   optional owner names
  --demo        also load demo data: a farm with blocks, zones and parcels, crop types,
                product categories, crops, a season template, seasons, diary task
                categories and sub-categories, and a task
`;

async function tenantCreate(args: string[]): Promise<number> {
  const values = parseOptions(
    args,
    {
      code: { type: 'string' },
      name: { type: 'string' },
      owner: { type: 'string' },
      password: { type: 'string' },
      firstname: { type: 'string' },
      lastname: { type: 'string' },
      demo: { type: 'boolean' },
    },
    TENANT_CREATE_HELP,
  );
  if (!values) return 0;
  const input = {
    code: requireOption(values, 'code', TENANT_CREATE_HELP),
    name: requireOption(values, 'name', TENANT_CREATE_HELP),
    owner: {
      username: requireOption(values, 'owner', TENANT_CREATE_HELP),
      password: requireOption(values, 'password', TENANT_CREATE_HELP),
      firstname: (values.firstname as string | undefined) ?? '',
      lastname: (values.lastname as string | undefined) ?? '',
    },
  };
  const config = (await load.config()).loadConfig();
  const [{ migrateToLatest }, { createTenantWithOwner }, { systemClock }, { loadDemoData }] =
    await Promise.all([load.migrate(), load.tenantService(), load.clock(), load.demoData()]);
  await withDatabase(config, async ({ db }) => {
    await migrateToLatest(db);
    const { tenant, ownerId } = await createTenantWithOwner({ db, clock: systemClock }, input);
    process.stdout.write(
      `Created tenant "${tenant.code}" (id ${tenant.id}) with owner "${input.owner.username.toLowerCase()}".\n`,
    );
    if (values.demo) {
      const demo = await loadDemoData({ clock: systemClock }, { db, tenantId: tenant.id }, ownerId);
      process.stdout.write(describeDemo(demo));
    }
  });
  return 0;
}

const USER_CREATE_HELP = `Usage: furrow user create --tenant CODE --username USERNAME --password PASSWORD [--role owner|staff]

Creates a user in an existing tenant.
  --tenant      tenant code
  --username    login name (case-insensitive; stored in lower case)
  --password    at least 8 characters
  --role        owner or staff (default staff)
  --name, --firstname, --lastname   optional display names
`;

async function userCreate(args: string[]): Promise<number> {
  const values = parseOptions(
    args,
    {
      tenant: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      firstname: { type: 'string' },
      lastname: { type: 'string' },
    },
    USER_CREATE_HELP,
  );
  if (!values) return 0;
  const tenantCode = requireOption(values, 'tenant', USER_CREATE_HELP).toLowerCase();
  const role = (values.role as string | undefined) ?? 'staff';
  if (role !== 'owner' && role !== 'staff')
    throw new UsageError(`--role must be owner or staff.\n\n${USER_CREATE_HELP}`);
  const config = (await load.config()).loadConfig();
  const [{ migrateToLatest }, { findTenantByCode }, { createUser }, { systemClock }] = await Promise.all([
    load.migrate(),
    load.tenants(),
    load.userService(),
    load.clock(),
  ]);
  await withDatabase(config, async ({ db }) => {
    await migrateToLatest(db);
    const tenant = await findTenantByCode(db, tenantCode);
    if (!tenant) throw new UsageError(`No tenant with code "${tenantCode}".`);
    const user = await createUser(
      { clock: systemClock },
      { db, tenantId: tenant.id },
      {
        username: requireOption(values, 'username', USER_CREATE_HELP),
        password: requireOption(values, 'password', USER_CREATE_HELP),
        role,
        name: values.name as string | undefined,
        firstname: values.firstname as string | undefined,
        lastname: values.lastname as string | undefined,
      },
    );
    process.stdout.write(
      `Created ${user.role} "${user.username}" (id ${user.id}) in tenant "${tenant.code}".\n`,
    );
  });
  return 0;
}

const SERVE_HELP = `Usage: furrow serve [--role all|api|worker] [--migrate]

Starts Furrow. Roles:
  all      API, web screen, delivery worker and offline sweeper in one process (default)
  api      only the HTTP API and web screen
  worker   only the background work (webhook deliveries, offline sweeps)
--migrate  apply pending migrations on start (always done on SQLite; on PostgreSQL
           run "furrow migrate" once per release, or pass --migrate)
`;

type Role = 'all' | 'api' | 'worker';

async function serve(args: string[]): Promise<number> {
  const values = parseOptions(args, { role: { type: 'string' }, migrate: { type: 'boolean' } }, SERVE_HELP);
  if (!values) return 0;
  const role = ((values.role as string | undefined) ?? 'all') as Role;
  if (!['all', 'api', 'worker'].includes(role))
    throw new UsageError(`--role must be all, api or worker.\n\n${SERVE_HELP}`);

  const config = (await load.config()).loadConfig();
  const [
    { openDatabase, dialectOf, bulkWorkTimeouts },
    { migrateToLatest, pendingMigrations },
    { buildApp },
    { systemClock },
    { loggerOptions },
  ] = await Promise.all([load.database(), load.migrate(), load.app(), load.clock(), load.logging()]);
  const { loadOrCreateSecretKey } = await load.secretKey();
  const secret = loadOrCreateSecretKey(config.secretKey, config.dataDir);
  const { takeSqliteServeLock } = await load.serveLock();
  const serveLock =
    dialectOf(config.databaseUrl) === 'sqlite'
      ? takeSqliteServeLock(config.databaseUrl.slice('sqlite:'.length))
      : undefined;
  // On PostgreSQL each delivery in flight records on a connection of its own: a process that
  // delivers keeps a larger pool (WORKER_POOL_SIZE) than one that only answers the API (10).
  const maxConnections = role === 'api' ? 10 : (await load.webhookWorker()).WORKER_POOL_SIZE;
  const database = openDatabase(config.databaseUrl, {
    maxConnections,
    timeouts: config.databaseTimeouts,
  });
  const { startAll, stopAll } = await load.background();
  const services: BackgroundService[] = [];
  let app: FastifyInstance | undefined;
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
    if (role !== 'worker') await createDemoTenantIfEmpty(database, config, systemClock);

    app = await buildApp({
      config,
      database,
      clock: systemClock,
      secretKey: secret.key,
      logger: loggerOptions(config.logLevel),
    });
    if (secret.source === 'created') app.log.info(`created a new secret key in ${config.dataDir}/secret.key`);
    if (config.webhookAllowPrivateHosts.length > 0) {
      app.log.warn(
        { hosts: config.webhookAllowPrivateHosts },
        'WEBHOOK_ALLOW_PRIVATE_HOSTS exempts these hosts from the public-address rule',
      );
    }
    if (config.webhookCaFile) {
      app.log.warn(
        { file: config.webhookCaFile },
        'WEBHOOK_CA_FILE adds these certificates to the ones trusted for webhook receivers',
      );
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
  await Promise.all([app.close(), stopAll(services)]);
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

function describeDemo(demo: { farms: number; crops: number; seasons: number; tasks: number }): string {
  return (
    `Loaded demo data: ${demo.farms} farm with blocks, zones and parcels, ${demo.crops} crops, ` +
    `${demo.seasons} seasons, ${demo.tasks} diary task, and their reference data.\n`
  );
}
