// Plain statements shared by the repositories of soft-deleted, tenant-owned tables: a page of live
// rows with its total, one live row, insert, partial update and soft delete. Every statement goes
// through the tenant-bound helpers of scope.ts.
import {
  type Expression,
  type ExpressionBuilder,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import { type AppError, validationFailed } from '../errors.js';
import { isPostgresDb } from './database.js';
import { type PreparedQuery, preparedQuery } from './prepared.js';
import { insertScoped, type Scope, selectScoped, updateScoped } from './scope.js';
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

export interface PageRequest {
  /** From 0. */
  page: number;
  pageLimit: number;
}

export type Filter = (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>;

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
export async function countUpTo(
  db: Db,
  matches: SelectQueryBuilder<any, any, any>,
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
  return (selectScoped({ db, tenantId: p.tenantId }, table) as any)
    .select(`${table}.id`)
    .where(`${table}.deleted_at`, 'is', null)
    .orderBy(`${table}.id`, 'desc')
    .limit(p.limit)
    .offset(p.offset);
}

const livePageQueries = new Map<RecordTable, PreparedQuery<PageParams, unknown>>();

function livePageQuery(table: RecordTable) {
  let query = livePageQueries.get(table);
  if (query === undefined) {
    // The page's ids from the tenant's (tenant_id, id) index, then their rows. Asked for whole rows
    // at once, PostgreSQL walks the primary key newest first instead, through every newer row of
    // other tenants.
    query = preparedQuery((db, p: PageParams) =>
      (selectScoped({ db, tenantId: p.tenantId }, table) as any)
        .selectAll()
        .where(`${table}.id`, 'in', livePageIds(db, table, p))
        .orderBy(`${table}.id`, 'desc'),
    );
    livePageQueries.set(table, query);
  }
  return query;
}

const livePageIdsQueries = new Map<RecordTable, PreparedQuery<PageParams, unknown>>();

function livePageIdsQuery(table: RecordTable) {
  let query = livePageIdsQueries.get(table);
  if (query === undefined) {
    query = preparedQuery((db, p: PageParams) => livePageIds(db, table, p));
    livePageIdsQueries.set(table, query);
  }
  return query;
}

/** A filter on a range of an indexed column, whose matches are better sorted than walked in id order. */
export type RangeFilter = Filter & { sortsMatches?: boolean };

/** Marks a range filter (see listLive). */
export function rangeFilter(filter: Filter): RangeFilter {
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
  filters: readonly Filter[] = [],
): Promise<PageOf<Selectable<Database[T]>>> {
  type Row = Selectable<Database[T]>;
  if (filters.length === 0) {
    return pageOf(
      page,
      async (limit, offset) => {
        const params = { tenantId: scope.tenantId, limit, offset };
        if (limit <= ROWS_PER_READ) {
          return withinBudget((await livePageQuery(table).all(scope.db, params)) as Row[], limit - 1);
        }
        const ids = (await livePageIdsQuery(table).all(scope.db, params)) as Array<{ id: number }>;
        return readInParts(scope, table, ids, limit - 1);
      },
      () => liveCount(scope, table),
    );
  }
  const matching = () =>
    filters.reduce(
      (q, filter) => q.where(filter),
      (selectScoped(scope, table) as any).where(`${table}.deleted_at`, 'is', null),
    );
  // The page's ids first, then their rows: only ids (not whole rows) go through the sort and the
  // offset, which matters when a filter matches many rows in an order other than the ids'. A range
  // filter (sortsMatches) finds its rows through its own index and sorts them: walking the ids
  // newest first would pass every row newer than the range, which the planners cannot foresee.
  const sortMatches = filters.some((filter) => (filter as RangeFilter).sortsMatches === true);
  const newestFirst = (q: any) =>
    sortMatches ? q.orderBy(sql`${sql.ref(`${table}.id`)} + 0`, 'desc') : q.orderBy(`${table}.id`, 'desc');
  const pageIds = (limit: number, offset: number) =>
    newestFirst(matching().select(`${table}.id`))
      .limit(limit)
      .offset(offset);
  return pageOf(
    page,
    async (limit, offset) => {
      if (limit > ROWS_PER_READ) {
        return readInParts(scope, table, await pageIds(limit, offset).execute(), limit - 1);
      }
      return withinBudget(
        (await (selectScoped(scope, table) as any)
          .selectAll()
          .where(`${table}.id`, 'in', pageIds(limit, offset))
          .orderBy(`${table}.id`, 'desc')
          .execute()) as Row[],
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
): Promise<Selectable<Database[T]>[]> {
  const rows: Selectable<Database[T]>[] = [];
  const budget = new PageBudget(pageRows);
  for (let start = 0; start < ids.length; start += ROWS_PER_READ) {
    const part = ids.slice(start, start + ROWS_PER_READ).map((r) => r.id);
    const byId = await findByIds(scope, table, part);
    for (const id of part) {
      const row = byId.get(id);
      if (row === undefined) continue;
      budget.take(row as object);
      rows.push(row);
    }
  }
  return rows;
}

const liveByIdQueries = new Map<RecordTable, PreparedQuery<{ tenantId: number; id: number }, unknown>>();

export async function findLive<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
): Promise<Selectable<Database[T]> | undefined> {
  let query = liveByIdQueries.get(table);
  if (query === undefined) {
    query = preparedQuery((db, p: { tenantId: number; id: number }) =>
      (selectScoped({ db, tenantId: p.tenantId }, table) as any)
        .selectAll()
        .where('id', '=', p.id)
        .where('deleted_at', 'is', null),
    );
    liveByIdQueries.set(table, query);
  }
  return (await query.first(scope.db, { tenantId: scope.tenantId, id })) as
    | Selectable<Database[T]>
    | undefined;
}

/** Rows by id for nesting in answers (soft-deleted ones too: an answer still names what it points at). */
export async function findByIds<T extends RecordTable>(
  scope: Scope,
  table: T,
  ids: readonly (number | null | undefined)[],
): Promise<Map<number, Selectable<Database[T]>>> {
  const unique = [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
  if (unique.length === 0) return new Map();
  const rows: any[] = await byIdsQuery(table).all(scope.db, {
    tenantId: scope.tenantId,
    ids: isPostgresDb(scope.db) ? unique : JSON.stringify(unique),
  });
  return new Map(rows.map((row) => [row.id as number, row]));
}

const byIdsQueries = new Map<RecordTable, PreparedQuery<{ tenantId: number; ids: unknown }, unknown>>();

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
      return (selectScoped({ db, tenantId: p.tenantId }, table) as any)
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
  values: Record<string, unknown>,
  now: number,
): Promise<number> {
  const row = await (
    insertScoped(scope, table, {
      ...values,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    } as any) as any
  )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id as number;
}

/** Changes the given columns of a live row; false when there is none. */
export async function updateRecord<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
  values: Record<string, unknown>,
  now: number,
): Promise<boolean> {
  const result = await (updateScoped(scope, table) as any)
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function softDeleteRecord<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
  now: number,
): Promise<boolean> {
  return updateRecord(scope, table, id, { deleted_at: now }, now);
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
): Filter {
  const like = (operator: string) => {
    const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return (eb: ExpressionBuilder<any, any>) =>
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
