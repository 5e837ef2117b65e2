// Reference checks: ids a request points at must name live records of the caller's tenant.
// The composite foreign keys already stop cross-tenant rows; this turns a bad id into a 422 that
// names the field, and also refuses soft-deleted records, which a foreign key cannot see.
import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
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

/**
 * A condition that holds when every reference names a live record of scope's tenant (for a write
 * that checks its references in its own statement: INSERT … SELECT … WHERE <this>); undefined when
 * there is nothing to check. An id that cannot be valid makes the condition false.
 */
export function referencesLive(
  scope: Scope,
  references: readonly Reference[],
): RawBuilder<boolean> | undefined {
  const conditions: RawBuilder<boolean>[] = [];
  for (const { table, id } of references) {
    const ids = [...new Set(idsOf(id))];
    if (ids.length === 0) continue;
    if (!ids.every((one) => Number.isSafeInteger(one) && one > 0 && one <= 2_147_483_647))
      return sql<boolean>`1 = 0`;
    // Kysely puts a query inside sql`` in parentheses itself: exists (select …).
    const live = selectScoped(scope, table)
      .select(sql.lit(1).as('one'))
      .where('id', 'in', ids)
      .where('deleted_at', 'is', null);
    conditions.push(
      ids.length === 1
        ? sql<boolean>`exists ${live}`
        : sql<boolean>`(select count(*) from ${live} as found) = ${ids.length}`,
    );
  }
  return conditions.length === 0 ? undefined : sql<boolean>`${sql.join(conditions, sql` and `)}`;
}

function idsOf(id: Reference['id']): readonly number[] {
  if (id === null || id === undefined) return [];
  return typeof id === 'number' ? [id] : id;
}
