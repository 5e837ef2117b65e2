// Plain statements shared by the repositories of soft-deleted, tenant-owned tables: a page of live
// rows with its total, one live row (also under lock), rows by id; the writes (insert, partial
// update, soft delete) are in record-writes.ts and exported from here too. Every statement goes
// through the tenant-bound helpers of scope.ts. Which tables they serve, and their types, are in
// record-tables.ts; the view they are written against in record-view.ts; paging in pages.ts.
import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { isPostgresDb } from './database.js';
import { idListOf, idListValue } from './id-lists.js';
import { isKeyed, type KeyedFilter } from './keyed-filters.js';
import {
  countOrUndefined,
  countQuery,
  countUpTo,
  PageBudget,
  type PageOf,
  type PageRequest,
  pageOf,
  ROWS_PER_READ,
} from './pages.js';
import { type PreparedQuery, preparedQuery } from './prepared.js';
import type { Filter, PreparedFilter, RecordTable, Row } from './record-tables.js';
import { asRows, type BaseRow, type RecordFilter, type RecordsDb, selectRecords } from './record-view.js';
import { type Scope, selectScoped } from './scope.js';
import type { Db } from './types.js';

export { idListOf, idListValue } from './id-lists.js';
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
export {
  insertRecord,
  insertRecordRow,
  insertRecordRowIf,
  softDeleteRecord,
  updateRecord,
  updateRecordRow,
} from './record-writes.js';

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
  if (filters.every(isKeyed)) return listByTemplates(scope, table, page, filters);
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

/** A filtered list's statements, built and compiled once for a table and a set of filter keys. */
interface ListTemplates {
  rows: PreparedQuery<Record<string, unknown>, BaseRow>;
  ids: PreparedQuery<Record<string, unknown>, { id: number }>;
  count: PreparedQuery<Record<string, unknown>, { n: number }>;
}

/** By table, the ordering, and the filters' keys. Bounded: the keys are words of the code. */
const listTemplates = new Map<string, ListTemplates>();
const LIST_TEMPLATES_KEPT = 1_000;

/** listLive's filtered statements, written once with stand-ins for the tenant, the page and the values. */
function listTemplatesFor<T extends RecordTable>(
  table: T,
  filters: readonly KeyedFilter<T>[],
  sortMatches: boolean,
): ListTemplates {
  const key = `${table} ${sortMatches ? 'sorted' : 'walked'} ${filters.map((f) => f.key).join(' & ')}`;
  let templates = listTemplates.get(key);
  if (templates !== undefined) return templates;
  const name: RecordTable = table;
  type Params = Record<string, unknown>;
  const matching = (db: Db, p: Params) => {
    const scope = { db, tenantId: p.tenantId as number };
    return filters.reduce(
      (q, filter, i) =>
        q.where((eb) =>
          filter.template(
            eb as never,
            filter.values.map((_, j) => p[`f${i}_${j}`]),
            scope,
          ),
        ),
      selectRecords(scope, name).where(`${name}.deleted_at`, 'is', null),
    );
  };
  const pageIds = (db: Db, p: Params) => {
    const ids = matching(db, p).select(`${name}.id`);
    return (
      sortMatches ? ids.orderBy(sql`${sql.ref(`${name}.id`)} + 0`, 'desc') : ids.orderBy(`${name}.id`, 'desc')
    )
      .limit(p.limit as number)
      .offset(p.offset as number);
  };
  templates = {
    rows: preparedQuery((db, p: Params) =>
      selectRecords({ db, tenantId: p.tenantId as number }, name)
        .selectAll()
        .where(`${name}.id`, 'in', pageIds(db, p))
        .orderBy(`${name}.id`, 'desc'),
    ),
    ids: preparedQuery((db, p: Params) => pageIds(db, p)),
    count: preparedQuery((db, p: Params) => countQuery(db, matching(db, p).select(sql.lit(1).as('one')))),
  };
  if (listTemplates.size >= LIST_TEMPLATES_KEPT) listTemplates.clear();
  listTemplates.set(key, templates);
  return templates;
}

/** listLive with keyed filters only: the same statements as built anew, from templates. */
async function listByTemplates<T extends RecordTable>(
  scope: Scope,
  table: T,
  page: PageRequest,
  filters: readonly KeyedFilter<T>[],
): Promise<PageOf<Row<T>>> {
  const sortMatches = filters.some((filter) => (filter as RangeFilter<T>).sortsMatches === true);
  const templates = listTemplatesFor(table, filters, sortMatches);
  const values: Record<string, unknown> = { tenantId: scope.tenantId };
  filters.forEach((filter, i) => {
    filter.values.forEach((value, j) => {
      values[`f${i}_${j}`] = value;
    });
  });
  return pageOf(
    page,
    async (limit, offset) => {
      const params = { ...values, limit, offset };
      if (limit > ROWS_PER_READ) {
        return readInParts(scope, table, await templates.ids.all(scope.db, params), limit - 1);
      }
      return withinBudget(asRows<T>(await templates.rows.all(scope.db, params)), limit - 1);
    },
    async () => countOrUndefined(await templates.count.first(scope.db, values)),
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

/**
 * A live record's row, held until the caller's transaction ends (lockLive and findLive in one
 * statement on PostgreSQL: SELECT … FOR NO KEY UPDATE; on SQLite the transaction holds it).
 */
export async function findLiveLocked<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
): Promise<Row<T> | undefined> {
  if (!isPostgresDb(scope.db)) return findLive(scope, table, id);
  let query = lockedByIdQueries.get(table);
  if (query === undefined) {
    query = preparedQuery((db, p: { tenantId: number; id: number }) =>
      selectRecords({ db, tenantId: p.tenantId }, table)
        .selectAll()
        .where('id', '=', p.id)
        .where('deleted_at', 'is', null)
        .forNoKeyUpdate(),
    );
    lockedByIdQueries.set(table, query);
  }
  return asRows<T>(await query.all(scope.db, { tenantId: scope.tenantId, id }))[0];
}

const lockedByIdQueries = new Map<RecordTable, PreparedQuery<{ tenantId: number; id: number }, BaseRow>>();

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
    ids: idListValue(scope.db, unique),
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
    query = preparedQuery((db, p: { tenantId: number; ids: unknown }) =>
      selectRecords({ db, tenantId: p.tenantId }, table)
        .selectAll()
        .where(sql<SqlBool>`${sql.ref(`${table}.id`)} in ${idListOf(db, p.ids)}`),
    );
    byIdsQueries.set(table, query);
  }
  return query;
}
