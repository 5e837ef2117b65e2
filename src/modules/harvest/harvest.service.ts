// Harvest batches: declared, then confirmed once; confirmation raises `harvest.batch.created`
// in the same transaction.
import type { Clock } from '../../platform/clock.js';
import { parseTimestamp } from '../../platform/dates.js';
import { checkReferences } from '../../platform/db/references.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import { emitEvent, type OutboxDeps } from '../webhooks/outbox.js';
import { type BatchRow, confirmDeclaredBatch, findBatch, insertBatch } from './harvest.repository.js';

export interface HarvestDeps extends OutboxDeps {
  clock: Clock;
}

export interface BatchAnswer {
  id: number;
  parcel_id: number;
  crop_type_id: number;
  quantity_kg: number;
  harvested_at: string;
  notes: string | null;
  status: 'declared' | 'confirmed';
  declared_by: number | null;
  confirmed_by: number | null;
  confirmed_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toBatchAnswer(row: BatchRow): BatchAnswer {
  return {
    id: row.id,
    parcel_id: row.parcel_id,
    crop_type_id: row.crop_type_id,
    quantity_kg: row.quantity_kg,
    harvested_at: new Date(row.harvested_at).toISOString(),
    notes: row.notes,
    status: row.status,
    declared_by: row.declared_by,
    confirmed_by: row.confirmed_by,
    confirmed_at: isoOrNull(row.confirmed_at),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export interface BatchInput {
  parcel_id: number;
  crop_type_id: number;
  quantity_kg: number;
  harvested_at?: string | null | undefined;
  notes?: string | null | undefined;
}

export async function declareBatch(
  deps: HarvestDeps,
  scope: Scope,
  userId: number,
  input: BatchInput,
): Promise<BatchAnswer> {
  const now = deps.clock.now();
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
    ...(await checkReferences(scope, [
      { field: 'parcel_id', table: 'parcels', id: input.parcel_id },
      { field: 'crop_type_id', table: 'crop_types', id: input.crop_type_id },
    ])),
  );
  if (errors.length > 0) throw validationFailed(errors);
  const id = await insertBatch(
    scope,
    {
      parcel_id: input.parcel_id,
      crop_type_id: input.crop_type_id,
      quantity_kg: input.quantity_kg,
      harvested_at: harvestedAt,
      notes: input.notes ?? null,
      declared_by: userId,
    },
    now,
  );
  return getBatch(scope, id);
}

export async function getBatch(scope: Scope, id: number): Promise<BatchAnswer> {
  const row = await findBatch(scope, id);
  if (!row) throw notFound();
  return toBatchAnswer(row);
}

/** Confirms a declared batch and raises `harvest.batch.created`; a second confirm is a 409. */
export async function confirmBatch(
  deps: HarvestDeps,
  scope: Scope,
  userId: number,
  id: number,
): Promise<BatchAnswer> {
  return inTransaction(scope, async (tx) => {
    const now = deps.clock.now();
    if (!(await findBatch(tx, id))) throw notFound();
    if (!(await confirmDeclaredBatch(tx, id, userId, now)))
      throw new AppError('harvest.already_confirmed', 409);
    const batch = await getBatch(tx, id);
    await emitEvent(deps, tx, 'harvest.batch.created', {
      harvest_record_id: batch.id,
      parcel_id: batch.parcel_id,
      crop_type_id: batch.crop_type_id,
      quantity_kg: batch.quantity_kg,
      confirmed_at: batch.confirmed_at,
    });
    return batch;
  });
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
