// Plain statements shared by the repositories of soft-deleted, tenant-owned tables: a page of live
// rows with its total, one live row, insert, partial update and soft delete. Every statement goes
// through the tenant-bound helpers of scope.ts.
import {
  type Expression,
  type ExpressionBuilder,
  PostgresAdapter,
  type Selectable,
  type SqlBool,
  sql,
} from 'kysely';
import { type PreparedQuery, preparedQuery } from './prepared.js';
import { insertScoped, type Scope, selectScoped, updateScoped } from './scope.js';
import type { Database } from './types.js';

/** Tenant-owned tables with soft delete. */
export type RecordTable = {
  [K in keyof Database]: Database[K] extends { tenant_id: number; deleted_at: number | null } ? K : never;
}[keyof Database];

export interface PageRequest {
  /** From 0. */
  page: number;
  pageLimit: number;
}

export type Filter = (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>;

/** One page of live rows, newest first, and the number of live rows that match. */
export async function listLive<T extends RecordTable>(
  scope: Scope,
  table: T,
  page: PageRequest,
  filters: readonly Filter[] = [],
): Promise<{ rows: Selectable<Database[T]>[]; total: number }> {
  const where = (qb: any) =>
    filters.reduce((q, filter) => q.where(filter), qb.where(`${table}.deleted_at`, 'is', null));
  const rows = await where(selectScoped(scope, table) as any)
    .selectAll()
    .orderBy(`${table}.id`, 'desc')
    .limit(page.pageLimit)
    .offset(page.page * page.pageLimit)
    .execute();
  const count = await where(selectScoped(scope, table) as any)
    .select((eb: any) => eb.fn.countAll().as('count'))
    .executeTakeFirst();
  return { rows, total: Number(count?.count ?? 0) };
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
  const rows: any[] = await (selectScoped(scope, table) as any)
    .selectAll()
    .where('id', 'in', unique)
    .execute();
  return new Map(rows.map((row) => [row.id as number, row]));
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

/**
 * Case-insensitive "column contains term". PostgreSQL: ILIKE (served by the pg_trgm indexes).
 * SQLite: LIKE, which ignores case for ASCII letters only.
 */
export function containsText(scope: Scope, column: string, term: string): Filter {
  const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const operator = isPostgresDb(scope) ? sql.raw('ilike') : sql.raw('like');
  return () => sql<SqlBool>`${sql.ref(column)} ${operator} ${pattern} escape '\\'`;
}

export function isPostgresDb(scope: Scope): boolean {
  return scope.db.getExecutor().adapter instanceof PostgresAdapter;
}
