// Kysely's SQLite dialect with a driver of our own, for three reasons that show under load: each
// statement is prepared once (the stock driver parses every query anew, which costs more than a
// lookup by key), waiting for the single connection is a FIFO queue (the stock mutex wakes every
// waiter at each release), and reads outside any transaction can run on the connection directly
// (prepared.ts), without queueing behind requests that only wait for their turn. Those direct reads
// of one event-loop turn share one read transaction (a "turn snapshot"): a read outside a
// transaction otherwise takes and drops SQLite's WAL read lock (file-lock system calls) each time,
// which costs more than the read itself. The snapshot ends at the end of the turn (setImmediate)
// and before any other statement, so writes and transactions never run inside it, and what another
// process commits is seen from the next turn on.
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

/** Builds a row object from a raw row (an array of column values), for one statement's columns. */
type RowMaker = (values: unknown[]) => Record<string, unknown>;

/**
 * A row maker for these column names, or undefined where better-sqlite3's own objects must do.
 * Rows are read as arrays and turned into objects by a function made for the statement's columns:
 * about twice as fast as better-sqlite3 building each object property by property, since every row
 * of a statement then shares one object shape. A duplicated name keeps the last value, as there.
 */
function rowMaker(columns: readonly string[]): RowMaker | undefined {
  if (columns.some((name) => name === '__proto__')) return undefined;
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as RowMaker;
}

/** The one SQLite connection of a process, with its statement cache. */
export class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, SQLite.Statement>();
  /** Row makers of reading statements (undefined: the statement answers objects itself). */
  private readonly makers = new WeakMap<SQLite.Statement, RowMaker | undefined>();
  /** Updates and deletes of this process, for the caches that must know (table-changes.ts). */
  readonly changes: TableChanges;
  /** A turn snapshot is open: a read transaction of direct reads, ended at the end of the turn. */
  private snapshotOpen = false;
  /** Streams iterating rows: no transaction may begin or end under them, so no snapshot opens. */
  private streaming = 0;
  private readonly begin: SQLite.Statement;
  private readonly commit: SQLite.Statement;
  private readonly endSnapshot = () => this.closeSnapshot();

  constructor(readonly sqlite: SQLite.Database) {
    this.begin = sqlite.prepare('begin');
    this.commit = sqlite.prepare('commit');
    this.changes = new TableChanges(sqlite, () => this.openSnapshot());
  }

  /** Whether a direct read may run now: no transaction is open, or only this turn's snapshot. */
  get readable(): boolean {
    return this.snapshotOpen || !this.sqlite.inTransaction;
  }

  private openSnapshot(): void {
    if (this.snapshotOpen || this.streaming > 0 || this.sqlite.inTransaction) return;
    this.begin.run();
    this.snapshotOpen = true;
    setImmediate(this.endSnapshot);
  }

  /** Ends the turn snapshot, if one is open; every statement but a direct read calls this first. */
  closeSnapshot(): void {
    if (!this.snapshotOpen) return;
    this.snapshotOpen = false;
    if (this.sqlite.inTransaction) this.commit.run();
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

  /** Rows of a read outside any transaction, synchronously, in the turn snapshot. */
  readRows<R>(sqlText: string, parameters: readonly unknown[]): R[] {
    this.openSnapshot();
    return this.rowsOf<R>(this.statement(sqlText), parameters);
  }

  /** Every row of a reading statement, as objects. */
  private rowsOf<R>(statement: SQLite.Statement, parameters: readonly unknown[]): R[] {
    const make = this.makerOf(statement);
    if (make === undefined) return statement.all(parameters) as R[];
    const rows = statement.all(parameters) as unknown[][];
    const out = new Array<R>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = make(rows[i]!) as R;
    return out;
  }

  private makerOf(statement: SQLite.Statement): RowMaker | undefined {
    if (this.makers.has(statement)) return this.makers.get(statement);
    const make = rowMaker(statement.columns().map((c) => c.name));
    if (make !== undefined) statement.raw(true);
    this.makers.set(statement, make);
    return make;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // A select outside a transaction reads in the turn snapshot, like a direct read; anything else
    // ends the snapshot first.
    if (SelectQueryNode.is(compiledQuery.query) && this.readable) this.openSnapshot();
    else this.closeSnapshot();
    const statement = this.statement(compiledQuery.sql);
    if (statement.reader) {
      // An update or delete with RETURNING reads rows too.
      if (!SelectQueryNode.is(compiledQuery.query)) this.changes.noteWrite(compiledQuery.sql);
      return Promise.resolve({ rows: this.rowsOf<R>(statement, compiledQuery.parameters) });
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
    this.closeSnapshot();
    this.streaming += 1;
    try {
      const statement = this.statement(compiledQuery.sql);
      const make = this.makerOf(statement);
      for (const row of statement.iterate(compiledQuery.parameters)) {
        yield { rows: [(make ? make(row as unknown[]) : row) as R] };
      }
    } finally {
      this.streaming -= 1;
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
