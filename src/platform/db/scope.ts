// Tenant-bound data access. Repositories reach tenant-owned tables only through these helpers,
// so every statement carries `tenant_id = scope.tenantId` without a hand-written where clause.
import type {
  DeleteQueryBuilder,
  DeleteResult,
  Insertable,
  InsertQueryBuilder,
  InsertResult,
  SelectQueryBuilder,
  UpdateQueryBuilder,
  UpdateResult,
} from 'kysely';
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

// Kysely cannot type a where clause on a generic table name; the casts stay inside this file.
export function selectScoped<T extends TenantTable>(
  scope: Scope,
  table: T,
  // biome-ignore lint/complexity/noBannedTypes: Kysely's own "no columns selected yet" type
): SelectQueryBuilder<Database, T, {}> {
  return (scope.db.selectFrom(table) as any).where(`${table}.tenant_id`, '=', scope.tenantId);
}

export function updateScoped<T extends TenantTable>(
  scope: Scope,
  table: T,
): UpdateQueryBuilder<Database, T, T, UpdateResult> {
  return (scope.db.updateTable(table) as any).where(`${table}.tenant_id`, '=', scope.tenantId);
}

export function deleteScoped<T extends TenantTable>(
  scope: Scope,
  table: T,
): DeleteQueryBuilder<Database, T, DeleteResult> {
  return (scope.db.deleteFrom(table) as any).where(`${table}.tenant_id`, '=', scope.tenantId);
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
  return (scope.db.insertInto(table) as any).values(rows);
}

/** Runs fn in a transaction; when the scope is already inside one, fn joins it. */
export async function inTransaction<R>(scope: Scope, fn: (tx: Scope) => Promise<R>): Promise<R> {
  if (scope.db.isTransaction) return fn(scope);
  return scope.db.transaction().execute((trx) => fn({ db: trx, tenantId: scope.tenantId }));
}
