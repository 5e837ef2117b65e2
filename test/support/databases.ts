// Every data test runs twice: on a fresh SQLite file and on a fresh PostgreSQL database, both
// created for the test file and removed after it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import type { DialectName } from '../../src/platform/db/types.js';

export const PG_ADMIN_URL = process.env.FURROW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

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

export class TestDatabase {
  url = '';
  private dir: string | undefined;
  private pgName: string | undefined;

  constructor(readonly dialect: DialectName) {}

  async create(): Promise<string> {
    if (this.dialect === 'sqlite') {
      this.dir = mkdtempSync(join(tmpdir(), 'furrow-test-'));
      this.url = `sqlite:${join(this.dir, 'furrow.db')}`;
      return this.url;
    }
    if (postgresProblem)
      throw new Error(`PostgreSQL is required in CI and does not answer: ${postgresProblem}`);
    this.pgName = `furrow_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(`create database ${this.pgName}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${this.pgName}`;
    this.url = url.toString();
    return this.url;
  }

  async drop(): Promise<void> {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    if (this.pgName) await adminQuery(`drop database if exists ${this.pgName} with (force)`);
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
 * Declares the suite once per dialect. The body receives a database that exists from its
 * `before` hooks on (declare hooks and tests in the body; read `database.url` inside them).
 */
export function forEachDialect(name: string, body: (database: TestDatabase) => void): void {
  for (const dialect of DIALECTS) {
    const skip = dialect === 'postgres' && postgresProblem && !IN_CI ? 'PostgreSQL not reachable' : false;
    describe(`${name} [${dialect}]`, { skip }, () => {
      const database = new TestDatabase(dialect);
      before(() => database.create());
      after(() => database.drop());
      body(database);
    });
  }
}
