// Harvest batches: declared, then confirmed once; confirmation raises `harvest.batch.created`
// in the same transaction.
import { filterBound, parseTimestamp } from '../../platform/dates.js';
import { checkReferences } from '../../platform/db/references.js';
import { inTransaction } from '../../platform/db/scope.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import type { ListAnswer } from '../../platform/resource/paging.js';
import { emitEvent } from '../webhooks/outbox.js';
import { type BatchAnswer, toBatchAnswer } from './harvest.presenter.js';
import {
  confirmDeclaredBatch,
  findBatch,
  insertBatch,
  selectBatchPage,
  sumBatches,
  type TotalsGrouping,
  type TotalsRow,
} from './harvest.repository.js';

export interface BatchInput {
  parcel_id: number;
  crop_type_id: number;
  quantity_kg: number;
  harvested_at?: string | null | undefined;
  notes?: string | null | undefined;
}

/** Batches, newest first, optionally of one status. */
export async function listBatches(
  ctx: RequestContext,
  query: PageQuery & { status?: 'declared' | 'confirmed' | undefined },
): Promise<ListAnswer> {
  const { rows, total, hasNext } = await selectBatchPage(ctx.scope, { status: query.status }, query);
  return { items: rows.map(toBatchAnswer), total, hasNext };
}

/** Declares a batch for the acting user: status `declared`, nothing raised yet. */
export async function declareBatch(ctx: RequestContext, input: BatchInput): Promise<BatchAnswer> {
  const now = ctx.clock.now();
  const errors: FieldError[] = [];
  let harvestedAt = now;
  if (input.harvested_at !== undefined && input.harvested_at !== null) {
    const parsed = parseTimestamp(input.harvested_at);
    if (parsed === undefined) errors.push({ field: 'harvested_at', message: 'field.timestamp' });
    else harvestedAt = parsed;
  }
  if (!(input.quantity_kg > 0) || !Number.isFinite(input.quantity_kg)) {
    errors.push({ field: 'quantity_kg', message: 'field.exclusive_minimum', params: { limit: 0 } });
  }
  errors.push(
    ...(await checkReferences(ctx.scope, [
      { field: 'parcel_id', table: 'parcels', id: input.parcel_id },
      { field: 'crop_type_id', table: 'crop_types', id: input.crop_type_id },
    ])),
  );
  if (errors.length > 0) throw validationFailed(errors);
  const id = await insertBatch(
    ctx.scope,
    {
      parcel_id: input.parcel_id,
      crop_type_id: input.crop_type_id,
      quantity_kg: input.quantity_kg,
      harvested_at: harvestedAt,
      notes: input.notes ?? null,
      declared_by: ctx.user.id,
    },
    now,
  );
  return getBatch(ctx, id);
}

export async function getBatch(ctx: Pick<RequestContext, 'scope'>, id: number): Promise<BatchAnswer> {
  const row = await findBatch(ctx.scope, id);
  if (!row) throw notFound();
  return toBatchAnswer(row);
}

/** Confirms a declared batch as the acting user and raises `harvest.batch.created`; a second confirm is a 409. */
export async function confirmBatch(ctx: RequestContext, id: number): Promise<BatchAnswer> {
  return inTransaction(ctx.scope, async (tx) => {
    const now = ctx.clock.now();
    if (!(await findBatch(tx, id))) throw notFound();
    if (!(await confirmDeclaredBatch(tx, id, ctx.user.id, now)))
      throw new AppError('harvest.already_confirmed', 409);
    const batch = await getBatch({ scope: tx }, id);
    await emitEvent(ctx, tx, 'harvest.batch.created', {
      harvest_record_id: batch.id,
      parcel_id: batch.parcel_id,
      crop_type_id: batch.crop_type_id,
      quantity_kg: batch.quantity_kg,
      confirmed_at: batch.confirmed_at,
    });
    return batch;
  });
}

export interface TotalsQuery {
  by: TotalsGrouping;
  from?: string | undefined;
  to?: string | undefined;
  status?: 'confirmed' | 'declared' | 'all' | undefined;
}

/**
 * Kilograms and batches per crop type or parcel over a period (default all time), of confirmed
 * batches unless `status` says otherwise; a date-only `to` includes its whole day.
 */
export async function harvestTotals(ctx: RequestContext, query: TotalsQuery): Promise<TotalsRow[]> {
  const errors: FieldError[] = [];
  const bound = (field: 'from' | 'to') => {
    const value = query[field];
    if (value === undefined || value === '') return undefined;
    const ms = filterBound(value, field);
    if (ms === undefined) errors.push({ field, message: 'field.format', params: { format: 'date' } });
    return ms;
  };
  const from = bound('from');
  const to = bound('to');
  if (errors.length > 0) throw validationFailed(errors);
  const status = query.status ?? 'confirmed';
  const rows = await sumBatches(ctx.scope, {
    by: query.by,
    status: status === 'all' ? undefined : status,
    from,
    to,
  });
  // Sums of doubles carry binary noise (0.1 + 0.2); grams are the finest a harvest is weighed.
  return rows.map((r) => ({ ...r, quantity_kg: Math.round(r.quantity_kg * 1000) / 1000 }));
}
