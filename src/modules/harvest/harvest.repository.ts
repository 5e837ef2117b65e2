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

/** What harvest totals group by: the crop type or the parcel of each batch. */
export type TotalsGrouping = 'crop_type' | 'parcel';

export interface TotalsRow {
  id: number;
  name: string;
  quantity_kg: number;
  batch_count: number;
}

/**
 * Kilograms and batches per crop type or parcel, in one grouped statement: batches harvested in
 * [from, to] (either bound optional) of one status or both, largest total first. A group whose crop
 * type or parcel was deleted since is still counted: the harvest happened.
 */
export async function sumBatches(
  scope: Scope,
  filter: {
    by: TotalsGrouping;
    status: 'declared' | 'confirmed' | undefined;
    from: number | undefined;
    to: number | undefined;
  },
): Promise<TotalsRow[]> {
  const base =
    filter.by === 'crop_type'
      ? selectScoped(scope, 'harvest_batches').innerJoin('crop_types as g', (join) =>
          join
            .onRef('g.tenant_id', '=', 'harvest_batches.tenant_id')
            .onRef('g.id', '=', 'harvest_batches.crop_type_id'),
        )
      : selectScoped(scope, 'harvest_batches').innerJoin('parcels as g', (join) =>
          join
            .onRef('g.tenant_id', '=', 'harvest_batches.tenant_id')
            .onRef('g.id', '=', 'harvest_batches.parcel_id'),
        );
  let query = base
    .select((eb) => [
      'g.id',
      'g.name',
      eb.fn.sum<number | string>('harvest_batches.quantity_kg').as('quantity_kg'),
      eb.fn.countAll<number | string>().as('batch_count'),
    ])
    .groupBy(['g.id', 'g.name']);
  if (filter.status) query = query.where('harvest_batches.status', '=', filter.status);
  if (filter.from !== undefined) query = query.where('harvest_batches.harvested_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('harvest_batches.harvested_at', '<=', filter.to);
  const rows = await query.orderBy('quantity_kg', 'desc').orderBy('g.id').execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    quantity_kg: Number(r.quantity_kg),
    batch_count: Number(r.batch_count),
  }));
}
