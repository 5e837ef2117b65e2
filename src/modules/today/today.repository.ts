// The Today page's reads: for each part, its first rows and its number of rows, both through the
// index migration 0008 made for that part (the status index for alerts, the partial indexes of
// offline devices, open tasks and declared batches). Read-only: the tables belong to their modules,
// which write them; nothing here changes a row.
import type { SelectQueryBuilder } from 'kysely';
import { countUpTo } from '../../platform/db/records.js';
import { type Scope, selectScoped } from '../../platform/db/scope.js';
import type { Database } from '../../platform/db/types.js';
import { overlapsRange } from '../diary/diary.repository.js';

/** A part's first rows, and how many rows it has (undefined past COUNT_LIMIT, as lists count). */
export interface Part<R> {
  rows: R[];
  count: number | undefined;
}

/** The part's rows (read first), then its count. One after the other: a request holds one connection. */
async function part<TB extends keyof Database, O, R>(
  scope: Scope,
  matches: SelectQueryBuilder<Database, TB, O>,
  rows: () => Promise<R[]>,
): Promise<Part<R>> {
  const first = await rows();
  return { rows: first, count: await countUpTo(scope.db, matches) };
}

export interface AlertSummaryRow {
  id: number;
  device_id: number;
  device_code: string;
  device_name: string;
  metric: string;
  value: number;
  threshold: number;
  operator: string;
  severity: string;
  message: string;
  recorded_at: number;
  created_at: number;
  acknowledged_at: number | null;
  acknowledged_by: number | null;
}

/**
 * Active alerts of live devices (a deleted device's alerts are nobody's to act on): those nobody
 * acknowledged first, then the acknowledged ones; newest first in each. `unacknowledged` counts the
 * first kind: what still waits for someone.
 */
export async function activeAlerts(
  scope: Scope,
  limit: number,
): Promise<Part<AlertSummaryRow> & { unacknowledged: number | undefined }> {
  const active = selectScoped(scope, 'iot_alerts')
    .innerJoin('iot_devices', (join) =>
      join
        .onRef('iot_devices.tenant_id', '=', 'iot_alerts.tenant_id')
        .onRef('iot_devices.id', '=', 'iot_alerts.device_id'),
    )
    .where('iot_alerts.status', '=', 'active')
    .where('iot_devices.deleted_at', 'is', null);
  const page = (acknowledged: boolean, n: number) =>
    active
      .where('iot_alerts.acknowledged_at', acknowledged ? 'is not' : 'is', null)
      .select([
        'iot_alerts.id',
        'iot_alerts.device_id',
        'iot_devices.code as device_code',
        'iot_devices.name as device_name',
        'iot_alerts.metric',
        'iot_alerts.value',
        'iot_alerts.threshold',
        'iot_alerts.operator',
        'iot_alerts.severity',
        'iot_alerts.message',
        'iot_alerts.recorded_at',
        'iot_alerts.created_at',
        'iot_alerts.acknowledged_at',
        'iot_alerts.acknowledged_by',
      ])
      .orderBy('iot_alerts.id', 'desc')
      .limit(n)
      .execute();
  const rows = async () => {
    const open = await page(false, limit);
    return open.length < limit ? [...open, ...(await page(true, limit - open.length))] : open;
  };
  const all = await part(scope, active.select('iot_alerts.id'), rows);
  const open = active.where('iot_alerts.acknowledged_at', 'is', null).select('iot_alerts.id');
  return { ...all, unacknowledged: await countUpTo(scope.db, open) };
}

export interface OfflineDeviceRow {
  id: number;
  code: string;
  name: string;
  zone_id: number | null;
  last_heartbeat_at: number | null;
  offline_at: number | null;
}

/** Live devices that are offline (never heard from included), the most recently gone first. */
export async function offlineDevices(scope: Scope, limit: number): Promise<Part<OfflineDeviceRow>> {
  const offline = selectScoped(scope, 'iot_devices')
    .where('iot_devices.deleted_at', 'is', null)
    .where('iot_devices.is_online', '=', 0);
  const rows = () =>
    offline
      .select(['id', 'code', 'name', 'zone_id', 'last_heartbeat_at', 'offline_at'])
      .orderBy('offline_at', (order) => order.desc().nullsLast())
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  return part(scope, offline.select('iot_devices.id'), rows);
}

export interface TaskSummaryRow {
  id: number;
  name: string;
  start_at: number | null;
  end_at: number | null;
  created_at: number;
  assigned_to: number | null;
  assigned_name: string | null;
  season_id: number | null;
  category_task_id: number | null;
}

/** Live tasks not done, of one assignee when `assignee` is given. */
function openTasks(scope: Scope, assignee: number | undefined) {
  const open = selectScoped(scope, 'diary_tasks')
    .where('diary_tasks.deleted_at', 'is', null)
    .where('diary_tasks.done_at', 'is', null);
  return assignee === undefined ? open : open.where('diary_tasks.assigned_to', '=', assignee);
}

function taskRows<O>(query: SelectQueryBuilder<Database, 'diary_tasks', O>) {
  return query
    .leftJoin('users', (join) =>
      join
        .onRef('users.tenant_id', '=', 'diary_tasks.tenant_id')
        .onRef('users.id', '=', 'diary_tasks.assigned_to'),
    )
    .select([
      'diary_tasks.id',
      'diary_tasks.name',
      'diary_tasks.start_at',
      'diary_tasks.end_at',
      'diary_tasks.created_at',
      'diary_tasks.assigned_to',
      'users.name as assigned_name',
      'diary_tasks.season_id',
      'diary_tasks.category_task_id',
    ]);
}

/** Open tasks whose end has passed, the most recently due first. */
export async function overdueTasks(
  scope: Scope,
  filter: { now: number; assignee?: number | undefined },
  limit: number,
): Promise<Part<TaskSummaryRow>> {
  const overdue = openTasks(scope, filter.assignee).where('diary_tasks.end_at', '<', filter.now);
  const rows = () =>
    taskRows(overdue)
      .orderBy('diary_tasks.end_at', 'desc')
      .orderBy('diary_tasks.id', 'desc')
      .limit(limit)
      .execute();
  return part(scope, overdue.select('diary_tasks.id'), rows);
}

/**
 * Open tasks that overlap the day [from, to) and are not overdue (no end, or an end still ahead),
 * in the order they start. The diary's range filter bounds the start_at index scan.
 */
export async function tasksOfDay(
  scope: Scope,
  filter: { from: number; to: number; now: number; assignee?: number | undefined },
  limit: number,
): Promise<Part<TaskSummaryRow>> {
  const ofDay = overlapsRange(scope, { from: filter.from, to: filter.to - 1 })
    .reduce((query, range) => query.where(range), openTasks(scope, filter.assignee))
    .where((eb) => eb.or([eb('diary_tasks.end_at', 'is', null), eb('diary_tasks.end_at', '>=', filter.now)]));
  const rows = () =>
    taskRows(ofDay)
      .orderBy('diary_tasks.start_at', 'asc')
      .orderBy('diary_tasks.id', 'asc')
      .limit(limit)
      .execute();
  return part(scope, ofDay.select('diary_tasks.id'), rows);
}

export interface WaitingBatchRow {
  id: number;
  parcel_id: number;
  parcel_name: string | null;
  crop_type_id: number;
  crop_type_name: string | null;
  quantity_kg: number;
  harvested_at: number;
  declared_by: number | null;
}

/** Harvest batches declared and not yet confirmed, newest first. */
export async function batchesAwaitingConfirmation(
  scope: Scope,
  limit: number,
): Promise<Part<WaitingBatchRow>> {
  const declared = selectScoped(scope, 'harvest_batches').where('harvest_batches.status', '=', 'declared');
  const rows = () =>
    declared
      .leftJoin('parcels', (join) =>
        join
          .onRef('parcels.tenant_id', '=', 'harvest_batches.tenant_id')
          .onRef('parcels.id', '=', 'harvest_batches.parcel_id'),
      )
      .leftJoin('crop_types', (join) =>
        join
          .onRef('crop_types.tenant_id', '=', 'harvest_batches.tenant_id')
          .onRef('crop_types.id', '=', 'harvest_batches.crop_type_id'),
      )
      .select([
        'harvest_batches.id',
        'harvest_batches.parcel_id',
        'parcels.name as parcel_name',
        'harvest_batches.crop_type_id',
        'crop_types.name as crop_type_name',
        'harvest_batches.quantity_kg',
        'harvest_batches.harvested_at',
        'harvest_batches.declared_by',
      ])
      .orderBy('harvest_batches.id', 'desc')
      .limit(limit)
      .execute();
  return part(scope, declared.select('harvest_batches.id'), rows);
}

export interface PausedEndpointRow {
  public_id: string;
  url: string;
  description: string;
  paused_reason: string | null;
  updated_at: number;
}

/** Webhook endpoints that are paused (by their owner or after failures), newest first. */
export async function pausedEndpoints(scope: Scope, limit: number): Promise<Part<PausedEndpointRow>> {
  const paused = selectScoped(scope, 'webhook_endpoints').where('webhook_endpoints.status', '=', 'paused');
  const rows = () =>
    paused
      .select(['public_id', 'url', 'description', 'paused_reason', 'updated_at'])
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  return part(scope, paused.select('webhook_endpoints.id'), rows);
}
