// Tenant-bound data access. Repositories reach tenant-owned tables only through these helpers,
// so every statement carries `tenant_id = scope.tenantId` without a hand-written where clause.
import {
  type DeleteQueryBuilder,
  type DeleteResult,
  type Insertable,
  type InsertObject,
  type InsertQueryBuilder,
  type InsertResult,
  type SelectQueryBuilder,
  sql,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import { sqliteConnectionOf } from './sqlite/open.js';
import type { Database, Db } from './types.js';

export interface Scope {
  readonly db: Db;
  readonly tenantId: number;
}

/** Tables whose rows belong to one tenant (they have a tenant_id column). */
export type TenantTable = {
  [K in keyof Database]: Database[K] extends { tenant_id: number } ? K : never;
}[keyof Database];

type TenantRow<T extends TenantTable> = Omit<Insertable<Database[T]>, 'tenant_id'>;

// Kysely cannot type a column of a table named by a type parameter (`${T}.tenant_id`), nor the
// builder of such a table: the column is named with sql.ref (the same SQL as a checked reference)
// and the builder's type is restated. Those casts stay inside this file.

/** `<table>.tenant_id`, for a tenant table named by a type parameter. */
const tenantColumn = (table: TenantTable) => sql.ref<number>(`${table}.tenant_id`);

// biome-ignore lint/complexity/noBannedTypes: Kysely's own "no columns selected yet" type
type NothingSelected = {};

export function selectScoped<T extends TenantTable>(
  scope: Scope,
  table: T,
): SelectQueryBuilder<Database, T, NothingSelected> {
  const query = scope.db.selectFrom(table as TenantTable).where(tenantColumn(table), '=', scope.tenantId);
  return query as unknown as SelectQueryBuilder<Database, T, NothingSelected>;
}

export function updateScoped<T extends TenantTable>(
  scope: Scope,
  table: T,
): UpdateQueryBuilder<Database, T, T, UpdateResult> {
  const query = scope.db.updateTable(table as TenantTable).where(tenantColumn(table), '=', scope.tenantId);
  return query as unknown as UpdateQueryBuilder<Database, T, T, UpdateResult>;
}

export function deleteScoped<T extends TenantTable>(
  scope: Scope,
  table: T,
): DeleteQueryBuilder<Database, T, DeleteResult> {
  const query = scope.db.deleteFrom(table as TenantTable).where(tenantColumn(table), '=', scope.tenantId);
  return query as unknown as DeleteQueryBuilder<Database, T, DeleteResult>;
}

export function insertScoped<T extends TenantTable>(
  scope: Scope,
  table: T,
  values: TenantRow<T> | readonly TenantRow<T>[],
): InsertQueryBuilder<Database, T, InsertResult> {
  const rows = (Array.isArray(values) ? values : [values]).map((row) => ({
    ...row,
    tenant_id: scope.tenantId,
  }));
  return scope.db.insertInto(table).values(rows as unknown as InsertObject<Database, T>[]);
}

/**
 * Runs fn in a transaction; when the scope is already inside one, fn joins it. On SQLite,
 * transactions that arrive together share one commit, each in a savepoint (sqlite/group-commit.ts).
 */
export async function inTransaction<R>(scope: Scope, fn: (tx: Scope) => Promise<R>): Promise<R> {
  if (scope.db.isTransaction) return fn(scope);
  const group = sqliteConnectionOf(scope.db)?.groupCommit;
  if (group) return group.run(scope.db, (trx) => fn({ db: trx, tenantId: scope.tenantId }));
  return scope.db.transaction().execute((trx) => fn({ db: trx, tenantId: scope.tenantId }));
}

/**
 * A write that needs no transaction of its own (one statement, or statements each fine alone): on
 * SQLite it joins the next group commit (sqlite/group-commit.ts) instead of paying a commit of its
 * own; on PostgreSQL it runs as it is, without the round trips of begin and commit.
 */
export async function groupedWrite<R>(scope: Scope, fn: (tx: Scope) => Promise<R>): Promise<R> {
  if (scope.db.isTransaction || sqliteConnectionOf(scope.db) === undefined) return fn(scope);
  return inTransaction(scope, fn);
}
