// Plain statements shared by the repositories of soft-deleted, tenant-owned tables: a page of live
// rows with its total, one live row (also under lock); a filtered page's statements and rows by id
// are in list-pages.ts, the writes (insert, partial update, soft delete) in record-writes.ts, and
// both are exported from here too. Every statement goes through the tenant-bound helpers of
// scope.ts. Which tables they serve, and their types, are in record-tables.ts; the view they are
// written against in record-view.ts; paging in pages.ts.
import { isPostgresDb } from './database.js';
import { isKeyed } from './keyed-filters.js';
import {
  filteredListStatements,
  filteredPage,
  listByTemplates,
  readInParts,
  withinBudget,
} from './list-pages.js';
import { countOrUndefined, type PageOf, type PageRequest, pageOf, ROWS_PER_READ } from './pages.js';
import { type PreparedQuery, preparedQuery } from './prepared.js';
import type { Filter, PreparedFilter, RecordTable, Row } from './record-tables.js';
import { asRows, type BaseRow, type RecordFilter, selectRecords } from './record-view.js';
import { type Scope, selectScoped } from './scope.js';
import type { Db } from './types.js';

export { idListOf, idListValue } from './id-lists.js';
export { findByIds } from './list-pages.js';
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
  // A range filter (sortsMatches) finds its rows through its own index and sorts them: walking the
  // ids newest first would pass every row newer than the range, which the planners cannot foresee.
  const sortMatches = filters.some((filter) => (filter as RangeFilter<T>).sortsMatches === true);
  if (filters.every(isKeyed)) return listByTemplates(scope, table, page, filters, sortMatches);
  await Promise.all(filters.map((filter) => (filter as PreparedFilter<T>).prepare?.()));
  // Each filter was written for this very table, so it runs unchanged over the RecordsDb view.
  const recordFilters = filters as readonly Filter<RecordTable>[] as readonly RecordFilter[];
  const statements = filteredListStatements(table, sortMatches, (q) =>
    recordFilters.reduce((matching, filter) => matching.where(filter), q),
  );
  const params = (limit = 0, offset = 0) => ({ tenantId: scope.tenantId, limit, offset });
  return filteredPage(scope, table, page, {
    rows: (limit, offset) => statements.rows(scope.db, params(limit, offset)).execute(),
    ids: (limit, offset) => statements.ids(scope.db, params(limit, offset)).execute(),
    count: async () => countOrUndefined(await statements.count(scope.db, params()).executeTakeFirst()),
  });
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
