// A page of a list from its statements: a filtered list's statements (built per request, or once per
// set of keyed filters and run with each request's values), a page read whole or in parts within
// the text budget, and rows by id. listLive (records.ts) puts them together.
import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { idListOf, idListValue } from './id-lists.js';
import type { KeyedFilter } from './keyed-filters.js';
import {
  countOrUndefined,
  countQuery,
  PageBudget,
  type PageOf,
  type PageRequest,
  pageOf,
  ROWS_PER_READ,
} from './pages.js';
import { type PreparedQuery, preparedQuery } from './prepared.js';
import type { RecordTable, Row } from './record-tables.js';
import { asRows, type BaseRow, type RecordsDb, selectRecords } from './record-view.js';
import type { Scope } from './scope.js';
import type { Db } from './types.js';

/** A filtered list's parameters: values, or a prepared query's stand-ins for them. */
export type ListParams = { tenantId: number; limit: number; offset: number } & Record<string, unknown>;

/**
 * The statements of a filtered list of `table`, `where` adding the filters' conditions: the
 * page's ids first, then their rows, so only ids (not whole rows) go through the sort and the
 * offset, which matters when a filter matches many rows in an order other than the ids'; and the
 * matches counted up to COUNT_LIMIT.
 */
export function filteredListStatements(
  table: RecordTable,
  sortMatches: boolean,
  where: (
    matching: SelectQueryBuilder<RecordsDb, RecordTable, object>,
    db: Db,
    p: ListParams,
  ) => SelectQueryBuilder<RecordsDb, RecordTable, object>,
) {
  const matching = (db: Db, p: ListParams) =>
    where(selectRecords({ db, tenantId: p.tenantId }, table).where(`${table}.deleted_at`, 'is', null), db, p);
  const ids = (db: Db, p: ListParams) => {
    const selected = matching(db, p).select(`${table}.id`);
    return (
      sortMatches
        ? selected.orderBy(sql`${sql.ref(`${table}.id`)} + 0`, 'desc')
        : selected.orderBy(`${table}.id`, 'desc')
    )
      .limit(p.limit)
      .offset(p.offset);
  };
  return {
    ids,
    rows: (db: Db, p: ListParams) =>
      selectRecords({ db, tenantId: p.tenantId }, table)
        .selectAll()
        .where(`${table}.id`, 'in', ids(db, p))
        .orderBy(`${table}.id`, 'desc'),
    count: (db: Db, p: ListParams) => countQuery(db, matching(db, p).select(sql.lit(1).as('one'))),
  };
}

/** A filtered page from its statements' answers (rows, or ids when the page is read in parts). */
export function filteredPage<T extends RecordTable>(
  scope: Scope,
  table: T,
  page: PageRequest,
  read: {
    rows(limit: number, offset: number): Promise<BaseRow[]>;
    ids(limit: number, offset: number): Promise<{ id: number }[]>;
    count(): Promise<number | undefined>;
  },
): Promise<PageOf<Row<T>>> {
  return pageOf(
    page,
    async (limit, offset) => {
      if (limit > ROWS_PER_READ) return readInParts(scope, table, await read.ids(limit, offset), limit - 1);
      return withinBudget(asRows<T>(await read.rows(limit, offset)), limit - 1);
    },
    read.count,
  );
}

/** A filtered list's statements, built and compiled once for a table and a set of filter keys. */
interface ListTemplates {
  rows: PreparedQuery<ListParams, BaseRow>;
  ids: PreparedQuery<ListParams, { id: number }>;
  count: PreparedQuery<ListParams, { n: number }>;
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
  const statements = filteredListStatements(table, sortMatches, (q, db, p) => {
    const scope = { db, tenantId: p.tenantId };
    return filters.reduce(
      (matching, filter, i) =>
        matching.where((eb) =>
          filter.template(
            eb as never,
            filter.values.map((_, j) => p[`f${i}_${j}`]),
            scope,
          ),
        ),
      q,
    );
  });
  templates = {
    rows: preparedQuery(statements.rows),
    ids: preparedQuery(statements.ids),
    count: preparedQuery(statements.count),
  };
  if (listTemplates.size >= LIST_TEMPLATES_KEPT) listTemplates.clear();
  listTemplates.set(key, templates);
  return templates;
}

/** listLive with keyed filters only: the same statements as built anew, from templates. */
export function listByTemplates<T extends RecordTable>(
  scope: Scope,
  table: T,
  page: PageRequest,
  filters: readonly KeyedFilter<T>[],
  sortMatches: boolean,
): Promise<PageOf<Row<T>>> {
  const templates = listTemplatesFor(table, filters, sortMatches);
  const values: ListParams = { tenantId: scope.tenantId, limit: 0, offset: 0 };
  filters.forEach((filter, i) => {
    filter.values.forEach((value, j) => {
      values[`f${i}_${j}`] = value;
    });
  });
  return filteredPage(scope, table, page, {
    rows: (limit, offset) => templates.rows.all(scope.db, { ...values, limit, offset }),
    ids: (limit, offset) => templates.ids.all(scope.db, { ...values, limit, offset }),
    count: async () => countOrUndefined(await templates.count.first(scope.db, values)),
  });
}

export function withinBudget<R extends object>(rows: R[], pageRows: number): R[] {
  const budget = new PageBudget(pageRows);
  for (const row of rows) budget.take(row);
  return rows;
}

/** A page's rows by their ids (in that order), ROWS_PER_READ at a time, within MAX_PAGE_TEXT. */
export async function readInParts<T extends RecordTable>(
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
