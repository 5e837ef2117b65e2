// The full-text indexes of a group commit's new rows, written once for the group (group-commit.ts).
//
// FTS5 writes what it holds in memory as a new segment of its index at every savepoint, and each
// statement inside a transaction that writes through a trigger opens one: a row inserted into a
// searched table cost two segments (the trigram index and the word index) and their merges, about
// four times the insert itself. Inside a group commit, the insert triggers of the searched tables
// (migration 0024) only note the new row's id here; just before the group commits, one statement
// per index adds every noted row as it stands then: one segment per index for the whole group.
//
// A noted row is not in the index until then, so its update and delete triggers leave the index
// alone (the statement reads the row as it is at the end, or finds it gone), and a savepoint rolled
// back leaves ids of rows that are not there, which the statement does not find. Outside a group
// commit (other transactions, single statements, migrations) the triggers index at once, as before.
// Every connection that writes to the searched tables must register the functions (openSqlite does).
import type SQLite from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { SEARCHED_COLUMNS } from '../searched-columns.js';

/** The full-text index tables of a searched table. */
export const searchIndexesOf = (table: string): string[] => [`${table}_search`, `${table}_words`];

export class DeferredSearchIndex {
  private deferring = false;
  /** Searched table → ids of the rows inserted while deferring. */
  private readonly noted = new Map<string, Set<number>>();

  /** Registers the trigger functions of migration 0024 on this connection. */
  register(sqlite: SQLite.Database): void {
    // Whether the insert trigger indexes the row now; else its id is noted for the group's end.
    sqlite.function('furrow_search_index_now', (table, id) => {
      if (!this.deferring) return 1;
      const key = String(table);
      const ids = this.noted.get(key) ?? new Set<number>();
      ids.add(Number(id));
      this.noted.set(key, ids);
      return 0;
    });
    // Whether the row was noted, so is not in the index yet: its update and delete leave the index
    // alone. An update that gives a noted row another id (`newId`) notes that id too.
    sqlite.function('furrow_search_noted', { varargs: true }, (table, id, newId) => {
      const ids = this.deferring ? this.noted.get(String(table)) : undefined;
      if (ids === undefined || !ids.has(Number(id))) return 0;
      if (newId !== undefined && newId !== null) ids.add(Number(newId));
      return 1;
    });
  }

  /** A group's transaction begins: inserts into searched tables are noted from now on. */
  begin(): void {
    this.noted.clear();
    this.deferring = true;
  }

  /**
   * The statements that index the noted rows, to run in the group's transaction before it commits;
   * noting ends. Empty when no searched row was inserted.
   */
  takeStatements(): CompiledQuery[] {
    this.deferring = false;
    const statements: CompiledQuery[] = [];
    for (const [table, ids] of this.noted) {
      const columns: readonly string[] | undefined = SEARCHED_COLUMNS[table as keyof typeof SEARCHED_COLUMNS];
      if (columns === undefined || ids.size === 0) continue;
      const list = columns.join(', ');
      for (const index of searchIndexesOf(table)) {
        statements.push(
          CompiledQuery.raw(
            `insert into ${index} (rowid, ${list}) select id, ${list} from ${table} ` +
              'where id in (select value from json_each(?))',
            [JSON.stringify([...ids])],
          ),
        );
      }
    }
    this.noted.clear();
    return statements;
  }

  /** The group ended, committed or not: nothing is noted any more. */
  end(): void {
    this.deferring = false;
    this.noted.clear();
  }
}
