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

  constructor(readonly sqlite: SQLite.Database) {
    this.statements = new StatementCache(sqlite);
    this.tableVersions = new TableVersions(sqlite);
    this.searchIndex.register(sqlite);
    this.groupCommit = new GroupCommit(() => sqlite.inTransaction, this.searchIndex);
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
    const statement = this.statements.get(sqlText);
    this.tableVersions.observe(sqlText, statement);
    return this.rows.all<R>(statement, parameters);
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // A select outside a transaction reads in the turn snapshot, like a direct read; anything else
    // ends the snapshot first.
    if (SelectQueryNode.is(compiledQuery.query) && this.snapshot.readable) this.snapshot.open();
    else this.snapshot.close();
    const statement = this.statements.get(compiledQuery.sql);
    this.tableVersions.observe(compiledQuery.sql, statement);
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
      const statement = this.statements.get(compiledQuery.sql);
      this.tableVersions.observe(compiledQuery.sql, statement);
      for (const row of this.rows.iterate<R>(statement, compiledQuery.parameters)) {
        yield { rows: [row] };
      }
    } finally {
      this.snapshot.streamEnded();
    }
  }
}
