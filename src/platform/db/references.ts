// Reference checks: ids a request points at must name live records of the caller's tenant.
// The composite foreign keys already stop cross-tenant rows; this turns a bad id into a 422 that
// names the field, and also refuses soft-deleted records, which a foreign key cannot see.
import { type SelectQueryBuilder, sql } from 'kysely';
import type { FieldError } from '../errors.js';
import { type Scope, selectScoped } from './scope.js';
import type { Database } from './types.js';

/** Tenant tables that can be referenced (all have id and deleted_at). */
export type ReferenceTable =
  | 'farms'
  | 'blocks'
  | 'zones'
  | 'parcels'
  | 'crop_types'
  | 'product_categories'
  | 'crops'
  | 'diary_categories'
  | 'diary_subcategories'
  | 'seasons'
  | 'season_templates'
  | 'diary_tasks'
  | 'users'
  | 'iot_devices';

export interface Reference {
  /** The request field named in the error, e.g. "crop_type" or "parcel_ids". */
  field: string;
  table: ReferenceTable;
  /** One id, several ids, or nothing to check (null/undefined are skipped). */
  id: number | readonly number[] | null | undefined;
}

/**
 * The references that do not name a live record of scope's tenant, one error per field
 * ({field, message: 'field.not_found'}). An empty array means every reference is good.
 */
export async function checkReferences(scope: Scope, references: readonly Reference[]): Promise<FieldError[]> {
  const wanted = new Map<ReferenceTable, Set<number>>();
  for (const { table, id } of references) {
    for (const one of idsOf(id)) {
      const set = wanted.get(table) ?? new Set<number>();
      set.add(one);
      wanted.set(table, set);
    }
  }
  const found = new Map<ReferenceTable, Set<number>>();
  // Every table's ids in one statement (a union of one select per table): one round trip.
  let query: SelectQueryBuilder<Database, ReferenceTable, { t: string; id: number }> | undefined;
  for (const [table, ids] of wanted) {
    found.set(table, new Set());
    const valid = [...ids].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647);
    if (valid.length === 0) continue;
    const select = selectScoped(scope, table as ReferenceTable)
      .select([sql.lit(table).as('t'), 'id'])
      .where('id', 'in', valid)
      .where('deleted_at', 'is', null) as unknown as SelectQueryBuilder<
      Database,
      ReferenceTable,
      { t: string; id: number }
    >;
    query = query === undefined ? select : query.unionAll(select);
  }
  for (const row of query === undefined ? [] : await query.execute()) {
    found.get(row.t as ReferenceTable)?.add(row.id);
  }
  const errors: FieldError[] = [];
  for (const { field, table, id } of references) {
    if (errors.some((e) => e.field === field)) continue;
    if (idsOf(id).some((one) => !found.get(table)?.has(one))) {
      errors.push({ field, message: 'field.not_found' });
    }
  }
  return errors;
}

/** The ids of one table that a write needs live, for a check in the write's own statement. */
export interface LiveIds {
  table: ReferenceTable;
  ids: readonly number[];
}

/**
 * What a write that checks its references in its own statement (INSERT … SELECT … WHERE they are
 * live, record-writes.ts) must find: each reference's distinct ids, references with none left
 * out; false when an id cannot be valid, so no row can match.
 */
export function liveIdsOf(references: readonly Reference[]): LiveIds[] | false {
  const wanted: LiveIds[] = [];
  for (const { table, id } of references) {
    const ids = [...new Set(idsOf(id))];
    if (ids.length === 0) continue;
    if (!ids.every((one) => Number.isSafeInteger(one) && one > 0 && one <= 2_147_483_647)) return false;
    wanted.push({ table, ids });
  }
  return wanted;
}

function idsOf(id: Reference['id']): readonly number[] {
  if (id === null || id === undefined) return [];
  return typeof id === 'number' ? [id] : id;
}
