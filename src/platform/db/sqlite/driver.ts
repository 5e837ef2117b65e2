// Kysely's SQLite dialect with a driver of our own: each statement is prepared once and reads share
// the turn snapshot (connection.ts), and waiting for the single connection is the connection's own
// FIFO queue, shared with its direct transactions (connection.ts).
import { CompiledQuery, type DatabaseConnection, type Driver, SqliteAdapter, SqliteDialect } from 'kysely';
import type { SqliteConnection } from './connection.js';

class SqliteDriver implements Driver {
  constructor(private readonly connection: SqliteConnection) {}

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    const { connection } = this;
    if (connection.turns.tryTake()) return Promise.resolve(connection);
    return connection.turns.take().then(() => connection);
  }

  async releaseConnection(): Promise<void> {
    this.connection.turns.give();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // Immediate: the write lock is taken, or waited for under the busy timeout, at the start. A
    // deferred transaction that has read (a statement prepared inside it reads the schema) and then
    // writes while another process holds the lock fails at once, without the busy timeout.
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite may have rolled the transaction back itself (after SQLITE_BUSY, SQLITE_FULL, …): a
    // second rollback would fail and hide the error that ended the transaction.
    if (!this.connection.sqlite.inTransaction) return;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    this.connection.closeSnapshot();
    this.connection.sqlite.close();
  }
}

/**
 * The adapter of a database opened here. It carries the connection, so code holding a Kysely
 * instance or any of its transactions can reach it (they share the adapter): see open.ts.
 */
export class FurrowSqliteAdapter extends SqliteAdapter {
  constructor(readonly connection: SqliteConnection) {
    super();
  }
}

export class FurrowSqliteDialect extends SqliteDialect {
  constructor(private readonly connection: SqliteConnection) {
    super({ database: connection.sqlite });
  }

  override createDriver(): Driver {
    return new SqliteDriver(this.connection);
  }

  override createAdapter(): SqliteAdapter {
    return new FurrowSqliteAdapter(this.connection);
  }
}
