// The view of the record tables that the shared statements are written against (records.ts reads,
// record-writes.ts writes): every record table with the columns of RecordBase.
import type {
  Expression,
  ExpressionBuilder,
  Generated,
  Selectable,
  SelectQueryBuilder,
  SqlBool,
  UpdateQueryBuilder,
  UpdateResult,
} from 'kysely';
import type { RecordTable, Row } from './record-tables.js';
import { type Scope, selectScoped, updateScoped } from './scope.js';

/** The columns every record table has: what the statements of this file are written against. */
export interface RecordBase {
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
 * between the two views stay in this file and its two users, records.ts and record-writes.ts.
 */
export type RecordsDb = Record<RecordTable, RecordBase>;
export type BaseRow = Selectable<RecordBase>;
export type RecordFilter = (eb: ExpressionBuilder<RecordsDb, RecordTable>) => Expression<SqlBool>;

// biome-ignore lint/complexity/noBannedTypes: Kysely's own "no columns selected yet" type
type NothingSelected = {};

export function selectRecords(
  scope: Scope,
  table: RecordTable,
): SelectQueryBuilder<RecordsDb, RecordTable, NothingSelected> {
  return selectScoped(scope, table) as unknown as SelectQueryBuilder<RecordsDb, RecordTable, NothingSelected>;
}

export function updateRecords(
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
export function asRows<T extends RecordTable>(rows: BaseRow[]): Row<T>[] {
  return rows as unknown as Row<T>[];
}
