// SQLite: a write transaction run directly on the one connection, synchronously in its turn, for the
// hot paths that write many rows with statements written out once (no query builder, no promise
// per statement), and the same statements for a member of a group commit, whose transaction holds
// the turn. PostgreSQL has no such path: its statements are round trips anyway.
import type { DirectStatements } from './sqlite/open.js';
import { sqliteConnectionOf, sqliteHandleConnection } from './sqlite/open.js';
import type { Db } from './types.js';

export type { DirectStatements } from './sqlite/open.js';

/**
 * Runs `work` as one write transaction on the SQLite connection behind this handle (see
 * SqliteConnection.transaction); undefined on PostgreSQL, and for a transaction's Kysely instance
 * (which holds the connection's turn: waiting for it there would never end).
 */
export function directTransaction<T>(
  db: Db,
  work: (statements: DirectStatements) => T,
): Promise<T> | undefined {
  return sqliteHandleConnection(db)?.transaction(work);
}

/**
 * The statements of the SQLite connection, to run at once, when `db` is the transaction of a
 * running group commit (sqlite/group-commit.ts), whose turn on the connection it holds: a member's
 * statement written out once then skips Kysely's promises. Undefined anywhere else.
 */
export function groupStatements(db: Db): DirectStatements | undefined {
  return db.isTransaction ? sqliteConnectionOf(db)?.groupCommit.statementsOf(db) : undefined;
}
