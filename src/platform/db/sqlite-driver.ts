// Kysely's SQLite dialect with a driver of our own, for three reasons that show under load: each
// statement is prepared once (the stock driver parses every query anew, which costs more than a
// lookup by key), waiting for the single connection is a FIFO queue (the stock mutex wakes every
// waiter at each release), and reads outside any transaction can run on the connection directly
// (prepared.ts), without queueing behind requests that only wait for their turn.
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  SqliteAdapter,
  SqliteDialect,
} from 'kysely';
import { TableChanges } from './table-changes.js';

/**
 * Prepared statements kept per connection; past this, the oldest is dropped. A hit does not reorder
 * the map: deleting and re-adding a key on every query churns the map's storage, which lives in the
 * old generation, and grows the heap under load.
 */
export const STATEMENT_CACHE_SIZE = 500;

/** The one SQLite connection of a process, with its statement cache. */
export class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, SQLite.Statement>();
  /** Updates and deletes of this process, for the caches that must know (table-changes.ts). */
  readonly changes: TableChanges;

  constructor(readonly sqlite: SQLite.Database) {
    this.changes = new TableChanges(sqlite);
  }

  /** A prepared statement for this SQL; a statement still iterating is never handed out twice. */
  statement(sqlText: string): SQLite.Statement {
    const cached = this.statements.get(sqlText);
    if (cached !== undefined) {
      return cached.busy ? this.sqlite.prepare(sqlText) : cached;
    }
    const statement = this.sqlite.prepare(sqlText);
    this.statements.set(sqlText, statement);
    if (this.statements.size > STATEMENT_CACHE_SIZE) {
      this.statements.delete(this.statements.keys().next().value as string);
    }
    return statement;
  }

  /** Rows of a read, synchronously. */
  readRows<R>(sqlText: string, parameters: readonly unknown[]): R[] {
    return this.statement(sqlText).all(parameters) as R[];
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.statement(compiledQuery.sql);
    if (statement.reader) {
      return Promise.resolve({ rows: statement.all(compiledQuery.parameters) as R[] });
    }
    this.changes.noteWrite(compiledQuery.sql);
    const { changes, lastInsertRowid } = statement.run(compiledQuery.parameters);
    return Promise.resolve({
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
      rows: [],
    });
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiledQuery.query)) {
      throw new Error('SQLite streams select queries only');
    }
    for (const row of this.statement(compiledQuery.sql).iterate(compiledQuery.parameters)) {
      yield { rows: [row as R] };
    }
  }
}

class SqliteDriver implements Driver {
  private locked = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly connection: SqliteConnection) {}

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve(this.connection);
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.connection)));
  }

  async releaseConnection(): Promise<void> {
    const next = this.waiting.shift();
    if (next) next();
    else this.locked = false;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    this.connection.sqlite.close();
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
    return new SqliteAdapter();
  }
}
