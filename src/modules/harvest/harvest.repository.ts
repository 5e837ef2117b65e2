import type { Selectable } from 'kysely';
import { countUpTo, type PageOf, type PageRequest, pageOf } from '../../platform/db/records.js';
import { insertScoped, type Scope, selectScoped, updateScoped } from '../../platform/db/scope.js';
import type { HarvestBatchesTable } from '../../platform/db/tables/iot.js';

export type BatchRow = Selectable<HarvestBatchesTable>;

export async function insertBatch(
  scope: Scope,
  batch: Pick<
    BatchRow,
    'parcel_id' | 'crop_type_id' | 'quantity_kg' | 'harvested_at' | 'notes' | 'declared_by'
  >,
  now: number,
): Promise<number> {
  const row = await insertScoped(scope, 'harvest_batches', {
    ...batch,
    status: 'declared',
    confirmed_by: null,
    confirmed_at: null,
    created_at: now,
    updated_at: now,
  })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findBatch(scope: Scope, id: number): Promise<BatchRow | undefined> {
  return selectScoped(scope, 'harvest_batches').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Batches, newest first; counted up to COUNT_LIMIT. */
export async function selectBatchPage(
  scope: Scope,
  filter: { status?: 'declared' | 'confirmed' | undefined },
  page: PageRequest,
): Promise<PageOf<BatchRow>> {
  let base = selectScoped(scope, 'harvest_batches');
  if (filter.status) base = base.where('status', '=', filter.status);
  return pageOf(
    page,
    (limit, offset) => base.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    () => countUpTo(scope.db, base.select('id')),
  );
}

/** Confirms a declared batch; false when it is not (or no longer) declared. */
export async function confirmDeclaredBatch(
  scope: Scope,
  id: number,
  userId: number,
  now: number,
): Promise<boolean> {
  const result = await updateScoped(scope, 'harvest_batches')
    .set({ status: 'confirmed', confirmed_at: now, confirmed_by: userId, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'declared')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
