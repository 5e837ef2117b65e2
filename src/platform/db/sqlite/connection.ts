// The one SQLite connection of a process, as Kysely's driver sees it, with the speed tricks of this
// folder (README.md): cached statements, row makers, the turn snapshot and the change counts.
import type SQLite from 'better-sqlite3';
import { type CompiledQuery, type DatabaseConnection, type QueryResult, SelectQueryNode } from 'kysely';
import { Changes } from './changes.js';
import { DeferredSearchIndex } from './deferred-search.js';
import { GroupCommit } from './group-commit.js';
import { RowReader } from './row-makers.js';
import { StatementCache } from './statements.js';
import { TableVersions } from './table-versions.js';
import { TurnSnapshot } from './turn-snapshot.js';

/** What a direct transaction's work runs its statements with (SqliteConnection.transaction). */
export interface DirectStatements {
  /** Every row of a reading statement (a select, or a write with RETURNING). */
  all<R>(sqlText: string, parameters: readonly unknown[]): R[];
  /** Runs a statement that answers no rows; how many rows it changed. */
  run(sqlText: string, parameters: readonly unknown[]): number;
}

/**
 * Whose turn the one connection is: Kysely's driver (a statement outside a transaction, or a whole
 * transaction) and direct transactions take it in the order they ask (a FIFO queue: the stock
 * mutex wakes every waiter at each release).
 */
class ConnectionTurns {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  /** Takes the connection now if it is free (true); otherwise leaves things as they are. */
  tryTake(): boolean {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Resolves once the connection is this caller's. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the connection to the next in line, or leaves it free. */
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

export class SqliteConnection implements DatabaseConnection {
  private readonly statements: StatementCache;
  private readonly rows = new RowReader();
  private readonly snapshot: TurnSnapshot;
  /** What in-process caches of rows need to know (changes.ts). */
  readonly changes: Changes;
  /** The tables each statement reads and writes, for the cache of read answers (table-versions.ts). */
  readonly tableVersions: TableVersions;
  /** Transactions that arrive together, committed once (group-commit.ts). */
  readonly groupCommit: GroupCommit;
  /** The full-text indexes of a group's new rows, written once per group (deferred-search.ts). */
  readonly searchIndex = new DeferredSearchIndex();

  /** Whose turn the connection is (the driver's statements and transactions, direct transactions). */
  readonly turns = new ConnectionTurns();
  private readonly direct: DirectStatements = {
    all: (sqlText, parameters) => this.rows.all(this.prepared(sqlText), parameters),
    run: (sqlText, parameters) => this.prepared(sqlText).run(parameters).changes,
  };

  constructor(readonly sqlite: SQLite.Database) {
    this.statements = new StatementCache(sqlite);
    this.tableVersions = new TableVersions(sqlite);
    this.searchIndex.register(sqlite);
    this.groupCommit = new GroupCommit(() => sqlite.inTransaction, this.searchIndex, this.direct);
    this.snapshot = new TurnSnapshot(sqlite);
    this.changes = new Changes(sqlite, () => this.snapshot.open());
  }

  /** Whether a direct read may run now: no transaction is open, or only this turn's snapshot. */
  get readable(): boolean {
    return this.snapshot.readable;
  }

  /** Ends the turn snapshot, if one is open (before the connection closes). */
  closeSnapshot(): void {
    this.snapshot.close();
  }

  /** Rows of a read outside any transaction, synchronously, in the turn snapshot. */
  readRows<R>(sqlText: string, parameters: readonly unknown[]): R[] {
    this.snapshot.open();
    return this.rows.all<R>(this.prepared(sqlText), parameters);
  }

  /**
   * Runs `work` in one write transaction (`begin immediate`), synchronously, in its turn on the
   * connection: at once when the connection is free, else after those before it. Its statements
   * skip Kysely and its promise per statement; they are shown to the table versions as the
   * driver's are. If `work` throws, the transaction is rolled back and the promise rejects.
   */
  transaction<T>(work: (statements: DirectStatements) => T): Promise<T> {
    if (this.turns.tryTake()) {
      try {
        return Promise.resolve(this.transactNow(work));
      } catch (err) {
        return Promise.reject(err);
      } finally {
        this.turns.give();
      }
    }
    return this.turns.take().then(() => {
      try {
        return this.transactNow(work);
      } finally {
        this.turns.give();
      }
    });
  }

  private transactNow<T>(work: (statements: DirectStatements) => T): T {
    this.snapshot.close();
    this.prepared('begin immediate').run();
    try {
      const result = work(this.direct);
      // Statements after an await would run outside the transaction, inside whatever holds the
      // connection then.
      if (result instanceof Promise)
        throw new TypeError('the work of a direct transaction must not be async');
      this.prepared('commit').run();
      return result;
    } catch (err) {
      // SQLite may have rolled back already (see the driver's rollbackTransaction).
      if (this.sqlite.inTransaction) this.prepared('rollback').run();
      throw err;
    }
  }

  /** The cached statement for this text, shown to the table versions before it runs. */
  private prepared(sqlText: string): SQLite.Statement {
    const statement = this.statements.get(sqlText);
    this.tableVersions.observe(sqlText, statement);
    return statement;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // A select outside a transaction reads in the turn snapshot, like a direct read; anything else
    // ends the snapshot first.
    if (SelectQueryNode.is(compiledQuery.query) && this.snapshot.readable) this.snapshot.open();
    else this.snapshot.close();
    const statement = this.prepared(compiledQuery.sql);
    if (statement.reader) {
      // A select, or an insert, update or delete with RETURNING.
      return Promise.resolve({ rows: this.rows.all<R>(statement, compiledQuery.parameters) });
    }
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
    this.snapshot.streamStarted();
    try {
      const statement = this.prepared(compiledQuery.sql);
      for (const row of this.rows.iterate<R>(statement, compiledQuery.parameters)) {
        yield { rows: [row] };
      }
    } finally {
      this.snapshot.streamEnded();
    }
  }
}
