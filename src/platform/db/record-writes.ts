// The shared writes of soft-deleted, tenant-owned tables: insert (answering the id or the whole row,
// or only when a condition holds), partial update and soft delete, through the tenant-bound helpers.
import { type Kysely, type RawBuilder, sql, type Updateable } from 'kysely';
import type { RecordColumns, RecordTable, Row } from './record-tables.js';
import { type BaseRow, type RecordBase, type RecordsDb, updateRecords } from './record-view.js';
import type { Scope } from './scope.js';

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

/**
 * insertRecordRow when `condition` holds, in the same statement (INSERT … SELECT … WHERE): the
 * row, or undefined when the condition did not hold and nothing was written.
 */
export async function insertRecordRowIf<T extends RecordTable>(
  scope: Scope,
  table: T,
  values: RecordColumns<T>,
  now: number,
  condition: RawBuilder<boolean>,
): Promise<(Row<T> & BaseRow) | undefined> {
  const all: Record<string, unknown> = {
    ...values,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    tenant_id: scope.tenantId,
  };
  const columns = Object.keys(all);
  const { rows } = await sql<Row<T> & BaseRow>`insert into ${sql.table(table)} (${sql.join(
    columns.map((column) => sql.ref(column)),
  )}) select ${sql.join(columns.map((column) => sql`${all[column]}`))} where ${condition} returning *`.execute(
    scope.db,
  );
  return rows[0];
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
