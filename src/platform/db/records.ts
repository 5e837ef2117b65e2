// Plain statements shared by the repositories of soft-deleted, tenant-owned tables: a page of live
// rows with its total, one live row, insert, partial update and soft delete. Every statement goes
// through the tenant-bound helpers of scope.ts. Which tables they serve, and their types, are in
// record-tables.ts; the paging arithmetic in pages.ts.
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
import { isPostgresDb } from './database.js';
import { countUpTo, PageBudget, type PageOf, type PageRequest, pageOf, ROWS_PER_READ } from './pages.js';
import { type PreparedQuery, preparedQuery } from './prepared.js';
import type { Filter, PreparedFilter, RecordColumns, RecordTable, Row } from './record-tables.js';
import { type Scope, selectScoped, updateScoped } from './scope.js';
import type { Db } from './types.js';

export {
  COUNT_LIMIT,
  countUpTo,
  MAX_PAGE_TEXT,
  type PageOf,
  type PageRequest,
  pageOf,
  pageTooLarge,
  ROWS_PER_READ,
} from './pages.js';
export {
  containsText,
  type Filter,
  RECORD_TABLES,
  type RecordColumns,
  type RecordTable,
  type RequestColumns,
  type Row,
  SEARCHED_COLUMNS,
  type SearchedTable,
} from './record-tables.js';

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
  await Promise.all(filters.map((filter) => (filter as PreparedFilter<T>).prepare?.()));
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

/**
 * Holds a live record's row until the caller's transaction ends: on PostgreSQL FOR NO KEY UPDATE,
 * so its other writers wait while records that refer to it do not. SQLite's transactions begin
 * immediate and take turns already.
 */
export async function lockLive(scope: Scope, table: RecordTable, id: number): Promise<void> {
  if (!isPostgresDb(scope.db)) return;
  await selectRecords(scope, table)
    .select(`${table}.id`)
    .where(`${table}.id`, '=', id)
    .where(`${table}.deleted_at`, 'is', null)
    .forNoKeyUpdate()
    .execute();
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

/** insertRecord, answering the whole row as written (one statement, no read after it). */
export async function insertRecordRow<T extends RecordTable>(
  scope: Scope,
  table: T,
  values: RecordColumns<T>,
  now: number,
): Promise<Row<T> & BaseRow> {
  const row = await (scope.db as unknown as Kysely<RecordsDb>)
    .insertInto(table as RecordTable)
    .values({ ...values, created_at: now, updated_at: now, deleted_at: null, tenant_id: scope.tenantId })
    .returningAll()
    .executeTakeFirstOrThrow();
  return row as unknown as Row<T> & BaseRow;
}

/** updateRecord, answering the whole row as changed, or undefined when there is no live row. */
export async function updateRecordRow<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
  values: RecordColumns<T>,
  now: number,
): Promise<Row<T> | undefined> {
  const row = await updateRecords(scope, table)
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row as unknown as Row<T> | undefined;
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
