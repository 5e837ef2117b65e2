// Opens a SQLite database file with this folder's driver, and finds the connection behind a handle.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { trigramText } from '../fts5-fold.js';
import type { Database, Db } from '../types.js';
import { type CheckpointerEvents, WalCheckpointer } from './checkpointer.js';
import { SqliteConnection } from './connection.js';
import { FurrowSqliteAdapter, FurrowSqliteDialect } from './driver.js';

export type { DirectStatements } from './connection.js';

export interface SqliteOptions {
  /** WAL checkpoints on a thread of their own (checkpointer.ts), for a server process. */
  backgroundCheckpoints?: CheckpointerEvents | undefined;
}

export function openSqlite(
  file: string,
  options: SqliteOptions = {},
): { db: Kysely<Database>; connection: SqliteConnection; checkpointer: WalCheckpointer | undefined } {
  if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Temporary tables and indexes in memory: a statement with RETURNING collects its rows in one,
  // and on disk each opened a temporary database whose page cache glibc gave back to the system
  // and took again for the next statement (a brk and fresh page faults per statement: half the
  // cost of a one-row insert). Migrations, which may sort whole tables, put them on disk
  // (migrate.ts).
  sqlite.pragma('temp_store = MEMORY');
  // The substring search's check of the rows it found by part of a term (record-tables.ts): whether
  // a text, read as the FTS5 trigram index reads it, holds the term read the same way.
  sqlite.function('furrow_trigram_text_holds', { deterministic: true }, (text, read) =>
    typeof text === 'string' && typeof read === 'string' && trigramText(text).includes(read) ? 1 : 0,
  );
  const connection = new SqliteConnection(sqlite);
  const db = new Kysely<Database>({ dialect: new FurrowSqliteDialect(connection) });
  directConnections.set(db, connection);
  const checkpointer =
    options.backgroundCheckpoints && file !== ':memory:'
      ? new WalCheckpointer(file, sqlite, options.backgroundCheckpoints)
      : undefined;
  return { db, connection, checkpointer };
}

/** The SQLite connection behind each database handle's Kysely instance (not its transactions). */
const directConnections = new WeakMap<Db, SqliteConnection>();

/**
 * The SQLite connection on which a read may run at once, synchronously: only for a handle's own
 * Kysely instance (a transaction runs its statements through Kysely), and only while no
 * transaction is open on the connection, so the read sees committed rows and nothing half-written.
 */
export function directSqliteConnection(db: Db): SqliteConnection | undefined {
  const connection = directConnections.get(db);
  return connection?.readable ? connection : undefined;
}

/**
 * The SQLite connection behind a handle's own Kysely instance, for a direct write transaction
 * (SqliteConnection.transaction), which waits its turn on the connection; undefined on PostgreSQL
 * and for a transaction's Kysely instance, which holds that turn already.
 */
export function sqliteHandleConnection(db: Db): SqliteConnection | undefined {
  return directConnections.get(db);
}

/** The SQLite connection behind a handle or any of its transactions; undefined on PostgreSQL. */
export function sqliteConnectionOf(db: Db): SqliteConnection | undefined {
  const adapter = db.getExecutor().adapter;
  return adapter instanceof FurrowSqliteAdapter ? adapter.connection : undefined;
}
