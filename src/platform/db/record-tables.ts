// The record tables: the one list of tenant-owned, soft-deleted tables (what migrations must give
// each: live-count triggers, a search index for searched columns), their row and column types taken
// from the Kysely table types, and the substring search over the searched columns.
import {
  type Expression,
  type ExpressionBuilder,
  type Selectable,
  type SqlBool,
  sql,
  type Updateable,
} from 'kysely';
import { isPostgresDb } from './database.js';
import { trigramText } from './fts5-fold.js';
import type { Scope } from './scope.js';
import { rareRun, rareWordStart, shareOf, termSample, wordStartShare } from './search-sample.js';
import { SEARCHED_COLUMNS } from './searched-columns.js';
import type { Database } from './types.js';

/** Tenant-owned tables with soft delete. */
export type RecordTable = {
  [K in keyof Database]: Database[K] extends { tenant_id: number; deleted_at: number | null } ? K : never;
}[keyof Database];

/**
 * Every record table, the one list: a table whose rows have `tenant_id` and `deleted_at` must be
 * here (the compiler checks), and a test checks that the migrations gave each one its live-count
 * triggers (an unfiltered list's total reads them; without them it reads 0) on both databases.
 */
export const RECORD_TABLES = [
  'farms',
  'blocks',
  'zones',
  'parcels',
  'crop_types',
  'product_categories',
  'crops',
  'diary_categories',
  'diary_subcategories',
  'season_templates',
  'seasons',
  'diary_tasks',
  'users',
  'iot_devices',
  'iot_rules',
  'iot_mqtt_sources',
] as const satisfies readonly RecordTable[];

/** Compiles only while RECORD_TABLES names every record table. */
const everyRecordTableListed: Exclude<RecordTable, (typeof RECORD_TABLES)[number]> extends never
  ? true
  : never = true;
void everyRecordTableListed;

export { SEARCHED_COLUMNS };

/** A record's row as read. */
export type Row<T extends RecordTable> = Selectable<Database[T]>;

/** Columns the record layer sets itself: a request never sets them. */
type RecordLayerColumn = 'id' | 'tenant_id' | 'created_at' | 'updated_at' | 'deleted_at';

/** The columns a write may set on a record (any of them; a misspelt one does not compile). */
export type RecordColumns<T extends RecordTable> = Omit<Updateable<Database[T]>, RecordLayerColumn>;

/**
 * The columns a request sets, before the checks: as RecordColumns, but a column that must not be
 * null may still be null (a request sent null for a required reference; the checks refuse it).
 */
export type RequestColumns<T extends RecordTable> = {
  [K in keyof RecordColumns<T>]?: RecordColumns<T>[K] | null;
};

/** A condition on a list's rows, in terms of the table's own columns. */
export type Filter<T extends RecordTable> = (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>;

/** Tables searched by substring, with an index for it on each dialect (migrations 0002 and 0005). */
export type SearchedTable = keyof typeof SEARCHED_COLUMNS;

/**
 * A filter with a read to make first: listLive awaits `prepare` before it builds its statements.
 * Unprepared, the filter is still right (it may only cost more).
 */
export type PreparedFilter<T extends RecordTable> = Filter<T> & { prepare?: () => Promise<void> };

/**
 * Case-insensitive "one of these columns contains the term". PostgreSQL: ILIKE, served by the pg_trgm
 * indexes. SQLite: a phrase query on the table's FTS5 trigram index (migration 0005), which also
 * folds the case of letters beyond ASCII; a term of one or two characters has no trigram and is
 * compared with LIKE, which folds ASCII letters only.
 *
 * A term with common trigrams (search-sample.ts) is looked up instead by part of it: a rare word start
 * in the word index (migration 0019 on SQLite, 0023 on PostgreSQL), else its rarest run of trigrams
 * (on PostgreSQL inside one word); and the rows found are checked against the whole term: on
 * PostgreSQL with ILIKE on an expression the index does not serve, on SQLite with the FTS5 reading of
 * texts (furrow_trigram_text_holds, registered on every connection by sqlite/open.ts). Either way
 * exactly the rows the whole term's lookup matches pass.
 */
export function containsText<T extends SearchedTable>(
  scope: Scope,
  table: T,
  columns: readonly (typeof SEARCHED_COLUMNS)[T][number][],
  term: string,
): PreparedFilter<T> {
  const escaped = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const like = (operator: string, text: string, indexed = true): Filter<T> => {
    const pattern = escaped(text);
    return (eb) =>
      eb.or(
        columns.map((column) => {
          const ref = sql.ref(`${table}.${column}`);
          // Concatenated with '', the column is no longer what the pg_trgm index serves.
          const value = indexed ? ref : sql`(${ref} || '')`;
          return sql<SqlBool>`${value} ${sql.raw(operator)} ${pattern} escape '\\'`;
        }),
      );
  };
  const postgres = isPostgresDb(scope.db);
  if (!postgres && [...term].length < 3) return like('like', term);
  const search = sql.table(`${table}_search`);
  const phrase = (text: string) => `{${columns.join(' ')}} : "${text.replace(/"/g, '""')}"`;
  const inIndex = (text: string): Filter<T> =>
    postgres
      ? like('ilike', text)
      : () =>
          sql<SqlBool>`${sql.ref(`${table}.id`)} in (select rowid from ${search} where ${search} match ${phrase(text)})`;
  const holdsTerm: Filter<T> = postgres
    ? like('ilike', term, false)
    : (eb) => {
        const read = trigramText(term);
        return eb.or(
          columns.map(
            (column) =>
              sql<SqlBool>`furrow_trigram_text_holds(cast(${sql.ref(`${table}.${column}`)} as text), ${read})`,
          ),
        );
      };
  // Three characters or fewer are one trigram at most: nothing to choose from.
  if ([...term].filter((c) => c !== '\0').length <= 3) return inIndex(term);
  // Set by prepare: look rows up by a rare word start or a rare run of trigrams, then check.
  let lookup: Filter<T> | undefined;
  const filter: Filter<T> = (eb) =>
    lookup === undefined ? inIndex(term)(eb) : eb.and([lookup(eb), holdsTerm(eb)]);
  return Object.assign(filter, {
    prepare: async () => {
      const sample = await termSample(scope.db, scope.tenantId, table, SEARCHED_COLUMNS[table]);
      const run = rareRun(term, (trigram) => shareOf(sample, columns, trigram), postgres);
      // No common trigram (or nothing rare): the whole term is looked up, as it always was.
      if (run === undefined) return;
      const word = rareWordStart(term, (start) => wordStartShare(sample, columns, start));
      if (word === undefined) {
        lookup = inIndex(run);
        return;
      }
      lookup = postgres ? wordStartPostgres(table, columns, word) : wordStartSqlite(table, columns, word);
    },
  });
}

/** Rows with a word that begins with `start` in one of the columns: FTS5 word index (migration 0019). */
function wordStartSqlite<T extends SearchedTable>(
  table: T,
  columns: readonly string[],
  start: string,
): Filter<T> {
  const words = sql.table(`${table}_words`);
  const prefix = `{${columns.join(' ')}} : "${start}" *`;
  return () =>
    sql<SqlBool>`${sql.ref(`${table}.id`)} in (select rowid from ${words} where ${words} match ${prefix})`;
}

/** Characters of a word start that migration 0023's index keeps in one lexeme (WORD_PIECE there). */
const WORD_PIECE = 200;

/**
 * Rows with a word that begins with `start` in one of the columns: a prefix query on migration
 * 0023's GIN index of furrow_search_words(column), the lowered words of each value. The start is
 * lowered by PostgreSQL as ILIKE lowers it; it is made of letters and digits only (rareWordStart), so
 * it needs no quoting beyond the tsquery's own quotes.
 */
function wordStartPostgres<T extends SearchedTable>(
  table: T,
  columns: readonly string[],
  start: string,
): Filter<T> {
  const query = sql`(quote_literal(left(lower(cast(${start} as text)), ${sql.lit(WORD_PIECE)})) || ':*')::tsquery`;
  return (eb) =>
    eb.or(
      columns.map(
        (column) => sql<SqlBool>`furrow_search_words(${sql.ref(`${table}.${column}`)}) @@ ${query}`,
      ),
    );
}
