// Plain statements shared by the repositories of soft-deleted, tenant-owned tables: a page of live
// rows with its total, one live row, insert, partial update and soft delete. Every statement goes
// through the tenant-bound helpers of scope.ts.
import {
  type Expression,
  type ExpressionBuilder,
  type Generated,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
  type Updateable,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import { type AppError, validationFailed } from '../errors.js';
import { isPostgresDb } from './database.js';
import { type PreparedQuery, preparedQuery } from './prepared.js';
import { type Scope, selectScoped, updateScoped } from './scope.js';
import type { Database, Db } from './types.js';

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
] as const satisfies readonly RecordTable[];

/** Compiles only while RECORD_TABLES names every record table. */
const everyRecordTableListed: Exclude<RecordTable, (typeof RECORD_TABLES)[number]> extends never
  ? true
  : never = true;
void everyRecordTableListed;

/** Columns searched by substring, per table: each has a trigram index on both databases. */
export const SEARCHED_COLUMNS = {
  crops: ['name', 'code', 'sku'],
  seasons: ['name', 'code'],
  season_templates: ['name'],
  diary_tasks: ['name'],
} as const satisfies Partial<Record<RecordTable, readonly string[]>>;

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

export interface PageRequest {
  /** From 0. */
  page: number;
  pageLimit: number;
}

/** A condition on a list's rows, in terms of the table's own columns. */
export type Filter<T extends RecordTable> = (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>;

/** The columns every record table has: what the statements of this file are written against. */
interface RecordBase {
  id: Generated<number>;
  tenant_id: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/**
 * Record tables as the shared statements see them. Kysely cannot check a column of a table named
 * by a type parameter (`${T}.id`), so the statements below are built over this view, where every
 * record table has the columns of RecordBase, and their rows are given back as Row<T>. The casts
 * between the two views stay in this file.
 */
type RecordsDb = Record<RecordTable, RecordBase>;
type BaseRow = Selectable<RecordBase>;
type RecordFilter = (eb: ExpressionBuilder<RecordsDb, RecordTable>) => Expression<SqlBool>;

// biome-ignore lint/complexity/noBannedTypes: Kysely's own "no columns selected yet" type
type NothingSelected = {};

function selectRecords(
  scope: Scope,
  table: RecordTable,
): SelectQueryBuilder<RecordsDb, RecordTable, NothingSelected> {
  return selectScoped(scope, table) as unknown as SelectQueryBuilder<RecordsDb, RecordTable, NothingSelected>;
}

function updateRecords(
  scope: Scope,
  table: RecordTable,
): UpdateQueryBuilder<RecordsDb, RecordTable, RecordTable, UpdateResult> {
  return updateScoped(scope, table) as unknown as UpdateQueryBuilder<
    RecordsDb,
    RecordTable,
    RecordTable,
    UpdateResult
  >;
}

/** Rows read through the RecordsDb view, as the rows of their own table. */
function asRows<T extends RecordTable>(rows: BaseRow[]): Row<T>[] {
  return rows as unknown as Row<T>[];
}

/** A filtered list counts its matches up to this many; past it, its total is not given. */
export const COUNT_LIMIT = 10_000;

/**
 * The most text one page may hold, in characters of its rows' text columns (about the bytes of its
 * answer). A page asking for more rows than fit is a 422 that says how many do fit, so a few huge
 * records cannot make one answer, or a handful of concurrent ones, exhaust the process's memory.
 */
export const MAX_PAGE_TEXT = 8 * 1024 * 1024;
/** A larger page reads its rows this many at a time, stopping as soon as the page is too large. */
export const ROWS_PER_READ = 25;

/** A 422 naming pageLimit: the page holds more than MAX_PAGE_TEXT; `fits` rows would not. */
export function pageTooLarge(fits: number): AppError {
  return validationFailed([
    {
      field: 'pageLimit',
      message: 'field.page_too_large',
      params: { megabytes: MAX_PAGE_TEXT / 1024 / 1024, fits: Math.max(1, fits) },
    },
  ]);
}

/**
 * Counts the text of a page's rows as they are read and throws pageTooLarge past MAX_PAGE_TEXT.
 * The row read past the page (which tells whether a next page exists) is not counted.
 */
class PageBudget {
  private chars = 0;
  private counted = 0;
  constructor(private readonly pageRows: number) {}
  take(row: object): void {
    if (this.counted >= this.pageRows) return;
    for (const value of Object.values(row)) if (typeof value === 'string') this.chars += value.length;
    if (this.chars > MAX_PAGE_TEXT) throw pageTooLarge(this.counted);
    this.counted += 1;
  }
}

export interface PageOf<R> {
  rows: R[];
  /** Matching rows in all; undefined when a filtered list matches more than COUNT_LIMIT. */
  total: number | undefined;
  /** Whether a page follows this one. */
  hasNext: boolean;
}

/**
 * A page of rows and what the paging headers need. The rows are fetched with one more than asked,
 * which tells whether a next page exists; a page that turns out to be the last gives the total
 * without counting. `count` is asked only otherwise.
 */
export async function pageOf<R>(
  page: PageRequest,
  fetch: (limit: number, offset: number) => Promise<R[]>,
  count: () => Promise<number | undefined>,
): Promise<PageOf<R>> {
  const offset = page.page * page.pageLimit;
  const fetched = await fetch(page.pageLimit + 1, offset);
  const hasNext = fetched.length > page.pageLimit;
  const rows = hasNext ? fetched.slice(0, page.pageLimit) : fetched;
  if (!hasNext && (rows.length > 0 || offset === 0)) return { rows, total: offset + rows.length, hasNext };
  return { rows, total: await count(), hasNext };
}

/** The number of rows a query selects, counted up to COUNT_LIMIT; undefined past it. */
export async function countUpTo<DB, TB extends keyof DB, O>(
  db: Db,
  matches: SelectQueryBuilder<DB, TB, O>,
): Promise<number | undefined> {
  const row = await db
    .selectFrom(matches.limit(COUNT_LIMIT + 1).as('matches'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const n = Number(row?.n ?? 0);
  return n > COUNT_LIMIT ? undefined : n;
}

const liveCountQuery = preparedQuery((db, p: { tenantId: number; table: string }) =>
  selectScoped({ db, tenantId: p.tenantId }, 'record_counts')
    .select('live_count')
    .where('table_name', '=', p.table),
);

/** The tenant's live rows of a table, as the triggers of migration 0005 keep them. */
export async function liveCount(scope: Scope, table: RecordTable): Promise<number> {
  const row = await liveCountQuery.first(scope.db, { tenantId: scope.tenantId, table });
  return Number(row?.live_count ?? 0);
}

type PageParams = { tenantId: number; limit: number; offset: number };

/** The ids of a page of live rows, newest first, from the tenant's (tenant_id, id) index. */
function livePageIds(db: Db, table: RecordTable, p: PageParams) {
  return selectRecords({ db, tenantId: p.tenantId }, table)
    .select(`${table}.id`)
    .where(`${table}.deleted_at`, 'is', null)
    .orderBy(`${table}.id`, 'desc')
    .limit(p.limit)
    .offset(p.offset);
}

const livePageQueries = new Map<RecordTable, PreparedQuery<PageParams, BaseRow>>();

function livePageQuery(table: RecordTable) {
  let query = livePageQueries.get(table);
  if (query === undefined) {
    // The page's ids from the tenant's (tenant_id, id) index, then their rows. Asked for whole rows
    // at once, PostgreSQL walks the primary key newest first instead, through every newer row of
    // other tenants.
    query = preparedQuery((db, p: PageParams) =>
      selectRecords({ db, tenantId: p.tenantId }, table)
        .selectAll()
        .where(`${table}.id`, 'in', livePageIds(db, table, p))
        .orderBy(`${table}.id`, 'desc'),
    );
    livePageQueries.set(table, query);
  }
  return query;
}

const livePageIdsQueries = new Map<RecordTable, PreparedQuery<PageParams, { id: number }>>();

function livePageIdsQuery(table: RecordTable) {
  let query = livePageIdsQueries.get(table);
  if (query === undefined) {
    query = preparedQuery((db, p: PageParams) => livePageIds(db, table, p));
    livePageIdsQueries.set(table, query);
  }
  return query;
}

/** A filter on a range of an indexed column, whose matches are better sorted than walked in id order. */
export type RangeFilter<T extends RecordTable> = Filter<T> & { sortsMatches?: boolean };

/** Marks a range filter (see listLive). */
export function rangeFilter<T extends RecordTable>(filter: Filter<T>): RangeFilter<T> {
  return Object.assign(filter, { sortsMatches: true });
}

/**
 * One page of live rows, newest first. Unfiltered, its total is the tenant's live count; filtered,
 * its matches are counted up to COUNT_LIMIT.
 */
export async function listLive<T extends RecordTable>(
  scope: Scope,
  table: T,
  page: PageRequest,
  filters: readonly Filter<T>[] = [],
): Promise<PageOf<Row<T>>> {
  if (filters.length === 0) {
    return pageOf(
      page,
      async (limit, offset) => {
        const params = { tenantId: scope.tenantId, limit, offset };
        if (limit <= ROWS_PER_READ) {
          return withinBudget(asRows<T>(await livePageQuery(table).all(scope.db, params)), limit - 1);
        }
        const ids = await livePageIdsQuery(table).all(scope.db, params);
        return readInParts(scope, table, ids, limit - 1);
      },
      () => liveCount(scope, table),
    );
  }
  // The statements are built over the RecordsDb view (see selectRecords); each filter was written
  // for this very table, so it runs there unchanged.
  const name: RecordTable = table;
  const recordFilters = filters as readonly Filter<RecordTable>[] as readonly RecordFilter[];
  const matching = () =>
    recordFilters.reduce(
      (q, filter) => q.where(filter),
      selectRecords(scope, name).where(`${name}.deleted_at`, 'is', null),
    );
  // The page's ids first, then their rows: only ids (not whole rows) go through the sort and the
  // offset, which matters when a filter matches many rows in an order other than the ids'. A range
  // filter (sortsMatches) finds its rows through its own index and sorts them: walking the ids
  // newest first would pass every row newer than the range, which the planners cannot foresee.
  const sortMatches = filters.some((filter) => (filter as RangeFilter<T>).sortsMatches === true);
  const newestFirst = <O>(q: SelectQueryBuilder<RecordsDb, RecordTable, O>) =>
    sortMatches ? q.orderBy(sql`${sql.ref(`${name}.id`)} + 0`, 'desc') : q.orderBy(`${name}.id`, 'desc');
  const pageIds = (limit: number, offset: number) =>
    newestFirst(matching().select(`${name}.id`))
      .limit(limit)
      .offset(offset);
  return pageOf(
    page,
    async (limit, offset) => {
      if (limit > ROWS_PER_READ) {
        return readInParts(scope, table, await pageIds(limit, offset).execute(), limit - 1);
      }
      return withinBudget(
        asRows<T>(
          await selectRecords(scope, name)
            .selectAll()
            .where(`${name}.id`, 'in', pageIds(limit, offset))
            .orderBy(`${name}.id`, 'desc')
            .execute(),
        ),
        limit - 1,
      );
    },
    () => countUpTo(scope.db, matching().select(sql.lit(1).as('one'))),
  );
}

function withinBudget<R extends object>(rows: R[], pageRows: number): R[] {
  const budget = new PageBudget(pageRows);
  for (const row of rows) budget.take(row);
  return rows;
}

/** A page's rows by their ids (in that order), ROWS_PER_READ at a time, within MAX_PAGE_TEXT. */
async function readInParts<T extends RecordTable>(
  scope: Scope,
  table: T,
  ids: ReadonlyArray<{ id: number }>,
  pageRows: number,
): Promise<Row<T>[]> {
  const rows: Row<T>[] = [];
  const budget = new PageBudget(pageRows);
  for (let start = 0; start < ids.length; start += ROWS_PER_READ) {
    const part = ids.slice(start, start + ROWS_PER_READ).map((r) => r.id);
    const byId = await findByIds(scope, table, part);
    for (const id of part) {
      const row = byId.get(id);
      if (row === undefined) continue;
      budget.take(row);
      rows.push(row);
    }
  }
  return rows;
}

const liveByIdQueries = new Map<RecordTable, PreparedQuery<{ tenantId: number; id: number }, BaseRow>>();

export async function findLive<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
): Promise<Row<T> | undefined> {
  let query = liveByIdQueries.get(table);
  if (query === undefined) {
    query = preparedQuery((db, p: { tenantId: number; id: number }) =>
      selectRecords({ db, tenantId: p.tenantId }, table)
        .selectAll()
        .where('id', '=', p.id)
        .where('deleted_at', 'is', null),
    );
    liveByIdQueries.set(table, query);
  }
  return asRows<T>(await query.all(scope.db, { tenantId: scope.tenantId, id }))[0];
}

/** Rows by id for nesting in answers (soft-deleted ones too: an answer still names what it points at). */
export async function findByIds<T extends RecordTable>(
  scope: Scope,
  table: T,
  ids: readonly (number | null | undefined)[],
): Promise<Map<number, Row<T>>> {
  const unique = [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
  if (unique.length === 0) return new Map();
  const rows = await byIdsQuery(table).all(scope.db, {
    tenantId: scope.tenantId,
    ids: isPostgresDb(scope.db) ? unique : JSON.stringify(unique),
  });
  return new Map(rows.map((row) => [row.id, row as unknown as Row<T>]));
}

const byIdsQueries = new Map<RecordTable, PreparedQuery<{ tenantId: number; ids: unknown }, BaseRow>>();

/**
 * Rows of a table by a list of ids, as one prepared statement whatever the list's length: the ids
 * are one parameter (a JSON array on SQLite, read with json_each; an array on PostgreSQL).
 */
function byIdsQuery(table: RecordTable) {
  let query = byIdsQueries.get(table);
  if (query === undefined) {
    query = preparedQuery((db, p: { tenantId: number; ids: unknown }) => {
      const ids = isPostgresDb(db)
        ? sql`(select unnest(${p.ids}::bigint[]))`
        : sql`(select value from json_each(${p.ids}))`;
      return selectRecords({ db, tenantId: p.tenantId }, table)
        .selectAll()
        .where(sql<SqlBool>`${sql.ref(`${table}.id`)} in ${ids}`);
    });
    byIdsQueries.set(table, query);
  }
  return query;
}

export async function insertRecord<T extends RecordTable>(
  scope: Scope,
  table: T,
  values: RecordColumns<T>,
  now: number,
): Promise<number> {
  // The statement insertScoped would make (tenant_id set last), through the RecordsDb view.
  const row = await (scope.db as unknown as Kysely<RecordsDb>)
    .insertInto(table as RecordTable)
    .values({ ...values, created_at: now, updated_at: now, deleted_at: null, tenant_id: scope.tenantId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Changes the given columns of a live row; false when there is none. Rows that an in-process cache
 * holds (users, for the token cache) are changed by their own repository, which tells the cache.
 */
export async function updateRecord<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
  values: RecordColumns<T>,
  now: number,
): Promise<boolean> {
  return setLive(scope, table, id, { ...values, updated_at: now });
}

export async function softDeleteRecord<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
  now: number,
): Promise<boolean> {
  return setLive(scope, table, id, { deleted_at: now, updated_at: now });
}

async function setLive(
  scope: Scope,
  table: RecordTable,
  id: number,
  values: Updateable<RecordBase>,
): Promise<boolean> {
  const result = await updateRecords(scope, table)
    .set(values)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Tables searched by substring, with an index for it on each dialect (migrations 0002 and 0005). */
export type SearchedTable = keyof typeof SEARCHED_COLUMNS;

/**
 * Case-insensitive "one of these columns contains the term". PostgreSQL: ILIKE, served by the pg_trgm
 * indexes. SQLite: a phrase query on the table's FTS5 trigram index (migration 0005), which also
 * folds the case of letters beyond ASCII; a term of one or two characters has no trigram and is
 * compared with LIKE, which folds ASCII letters only.
 */
export function containsText<T extends SearchedTable>(
  scope: Scope,
  table: T,
  columns: readonly (typeof SEARCHED_COLUMNS)[T][number][],
  term: string,
): Filter<T> {
  const like = (operator: string): Filter<T> => {
    const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return (eb) =>
      eb.or(
        columns.map(
          (column) =>
            sql<SqlBool>`${sql.ref(`${table}.${column}`)} ${sql.raw(operator)} ${pattern} escape '\\'`,
        ),
      );
  };
  if (isPostgresDb(scope.db)) return like('ilike');
  if ([...term].length < 3) return like('like');
  const search = sql.table(`${table}_search`);
  const phrase = `{${columns.join(' ')}} : "${term.replace(/"/g, '""')}"`;
  return () =>
    sql<SqlBool>`${sql.ref(`${table}.id`)} in (select rowid from ${search} where ${search} match ${phrase})`;
}
