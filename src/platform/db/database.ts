// Opens the database named by DATABASE_URL: SQLite (embedded default) or PostgreSQL (scale-out).
import { Kysely, PostgresAdapter, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { DEFAULT_DATABASE_TIMEOUTS } from '../../config.js';
import type { Changes } from './changes.js';
import { PostgresChanges } from './postgres-changes.js';
import {
  createPostgresPool,
  kyselyPool,
  type PostgresTimeouts,
  pingPool,
  StatementNames,
} from './postgres-pool.js';
import type { CheckpointerEvents } from './sqlite/checkpointer.js';
import { openSqlite } from './sqlite/open.js';
import type { Database, Db, DialectName } from './types.js';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** For PostgreSQL LISTEN/NOTIFY and tools that need the pool; undefined on SQLite. */
  readonly pool: pg.Pool | undefined;
  /**
   * When rows may have changed, for in-process caches (changes.ts). On PostgreSQL the first
   * version asked for starts this process's LISTEN connection; a process that never asks opens none.
   */
  readonly changes: Changes;
  /** select 1, failing within the connect timeout when the database does not answer (/readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function dialectOf(databaseUrl: string): DialectName {
  return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

// int8 (bigint) holds epoch milliseconds and counts; both fit in a JS number.
const INT8_OID = 20;
const NUMERIC_OID = 1700;
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export interface OpenOptions {
  /** Pool size on PostgreSQL. */
  maxConnections?: number;
  /** PostgreSQL timeouts (DATABASE_*_TIMEOUT_MS); their defaults unless given. */
  timeouts?: PostgresTimeouts;
  /**
   * PostgreSQL: statements run again and again are prepared once per connection (named). Off for a
   * connection pooler that cannot keep them (DATABASE_PREPARED_STATEMENTS=off). Default on.
   */
  preparedStatements?: boolean;
  /**
   * SQLite: WAL checkpoints on a thread of their own, never in a commit on the event loop
   * (sqlite/checkpointer.ts); for a server process. Its events go to the callbacks given.
   */
  backgroundCheckpoints?: CheckpointerEvents;
}

/**
 * Timeouts for migrations and bulk loads: no statement or idle-in-transaction limit, as a migration
 * may rewrite or index a whole table, or wait for another process's migrations, for as long as
 * that takes. The connect timeout stays.
 */
export function bulkWorkTimeouts(timeouts: PostgresTimeouts = DEFAULT_DATABASE_TIMEOUTS): PostgresTimeouts {
  return { connectMs: timeouts.connectMs, statementMs: 0, idleInTransactionMs: 0 };
}

export function openDatabase(databaseUrl: string, options: OpenOptions = {}): DatabaseHandle {
  if (dialectOf(databaseUrl) === 'sqlite') {
    const { db, connection, checkpointer } = openSqlite(databaseUrl.slice('sqlite:'.length), {
      backgroundCheckpoints: options.backgroundCheckpoints,
    });
    return {
      db,
      dialect: 'sqlite',
      pool: undefined,
      changes: connection.changes,
      ping: async () => {
        await sql`select 1`.execute(db);
      },
      close: async () => {
        await checkpointer?.stop();
        await db.destroy();
      },
    };
  }
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const pool = createPostgresPool(databaseUrl, options.maxConnections ?? 10, timeouts, pgTypes);
  const names = options.preparedStatements === false ? undefined : new StatementNames();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: kyselyPool(pool, names) }) });
  const changes = new PostgresChanges(pool.options);
  return {
    db,
    dialect: 'postgres',
    pool,
    changes,
    ping: () => pingPool(pool, timeouts.connectMs),
    close: async () => {
      await changes.close();
      await db.destroy();
    },
  };
}

/** True when the error is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** True on PostgreSQL: row locks (FOR UPDATE, SKIP LOCKED) exist there and not on SQLite. */
export function isPostgresDb(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
