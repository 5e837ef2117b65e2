// Every data test runs twice: on a fresh SQLite file and on a fresh PostgreSQL database, both
// created for the test file and removed after it. They start migrated: under `npm test` as copies of
// templates the runner migrated once (FURROW_TEST_SQLITE_TEMPLATE, a file to copy, and
// FURROW_TEST_PG_TEMPLATE, a database to `create database … template`); a test file run on its own
// migrates each database itself. Tests of the migrations themselves ask for an empty database.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Database, DialectName } from '../../src/platform/db/types.js';

export const PG_ADMIN_URL = process.env.FURROW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
/** Set by scripts/test.mjs: a migrated SQLite file, a migrated database, this run's tag and folder. */
const SQLITE_TEMPLATE = process.env.FURROW_TEST_SQLITE_TEMPLATE || undefined;
const PG_TEMPLATE = process.env.FURROW_TEST_PG_TEMPLATE || undefined;
const RUN_TAG = process.env.FURROW_TEST_RUN || undefined;
const TEMP_ROOT = process.env.FURROW_TEST_TMPDIR || tmpdir();

async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

const postgresProblem = await probePostgres();
if (postgresProblem && !IN_CI) {
  process.stderr.write(
    `\n!!! PostgreSQL at ${PG_ADMIN_URL} does not answer (${postgresProblem}).\n` +
      '!!! The PostgreSQL half of the data tests is SKIPPED. CI runs it; start PostgreSQL to run it here.\n\n',
  );
}

export interface TestDatabaseOptions {
  /** false: an empty database, for tests of the migrations themselves. Default true. */
  migrated?: boolean;
}

export class TestDatabase {
  url = '';
  private dir: string | undefined;
  private pgName: string | undefined;
  private readonly migrated: boolean;

  constructor(
    readonly dialect: DialectName,
    options: TestDatabaseOptions = {},
  ) {
    this.migrated = options.migrated ?? true;
  }

  async create(): Promise<string> {
    if (this.dialect === 'sqlite') {
      this.dir = mkdtempSync(join(TEMP_ROOT, 'furrow-test-'));
      const file = join(this.dir, 'furrow.db');
      this.url = `sqlite:${file}`;
      if (this.migrated && SQLITE_TEMPLATE) copyFileSync(SQLITE_TEMPLATE, file);
      else if (this.migrated) await migrate(this.url);
      return this.url;
    }
    if (postgresProblem)
      throw new Error(`PostgreSQL is required in CI and does not answer: ${postgresProblem}`);
    // The runner drops what is left of its run's databases (a test process killed midway).
    const tag = RUN_TAG ? `${RUN_TAG}_` : '';
    this.pgName = `furrow_test_${tag}${process.pid}_${randomBytes(4).toString('hex')}`;
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${this.pgName}`;
    this.url = url.toString();
    if (this.migrated && PG_TEMPLATE) {
      await createFromTemplate(this.pgName, PG_TEMPLATE);
    } else {
      await adminQuery(`create database ${this.pgName}`);
      if (this.migrated) await migrate(this.url);
    }
    return this.url;
  }

  async drop(): Promise<void> {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    if (this.pgName) await adminQuery(`drop database if exists ${this.pgName} with (force)`);
  }
}

async function migrate(url: string): Promise<void> {
  const handle = openDatabase(url, { maxConnections: 1 });
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
}

/**
 * `create database … template`. PostgreSQL refuses it (55006) while any session is connected to
 * the template; the runner holds none and the template takes no connections, so this only retries
 * a moment that should not happen, rather than failing a test over it.
 */
async function createFromTemplate(name: string, template: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(`create database ${name} template ${template}`);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
      await sleep(50 + Math.random() * 150);
    }
  }
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const DIALECTS: DialectName[] = ['sqlite', 'postgres'];

/**
 * Declares the suite once per dialect. The body receives a database that exists, migrated unless
 * `migrated: false`, from its `before` hooks on (declare hooks and tests in the body; read
 * `database.url` inside them).
 */
export function forEachDialect(name: string, body: (database: TestDatabase) => void): void;
export function forEachDialect(
  name: string,
  options: TestDatabaseOptions,
  body: (database: TestDatabase) => void,
): void;
export function forEachDialect(
  name: string,
  ...rest: [(database: TestDatabase) => void] | [TestDatabaseOptions, (database: TestDatabase) => void]
): void {
  const [options, body] = rest.length === 1 ? [{}, rest[0]] : rest;
  for (const dialect of DIALECTS) {
    const skip = dialect === 'postgres' && postgresProblem && !IN_CI ? 'PostgreSQL not reachable' : false;
    describe(`${name} [${dialect}]`, { skip }, () => {
      const database = new TestDatabase(dialect, options);
      before(() => database.create());
      after(() => database.drop());
      body(database);
    });
  }
}

/**
 * Runs `lock` (a select … for update) in a transaction of its own and keeps that transaction open,
 * its rows locked, until `release` is called (which waits for it to end). Answers once the rows are
 * locked: the way to stand for another worker's claim or write in progress (PostgreSQL).
 */
export async function holdLocks(
  db: Kysely<Database>,
  lock: (trx: Kysely<Database>) => Promise<unknown>,
): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const holding = db.transaction().execute(async (trx) => {
    await lock(trx);
    locked();
    await released;
  });
  await Promise.race([isLocked, holding]);
  return {
    async release() {
      release();
      await holding;
    },
  };
}
