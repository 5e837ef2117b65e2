// IoT statements, one small function each. Tenant-owned rows are reached through the scope helpers;
// the offline sweeper is the one cross-tenant reader (it is a system process, not a request).
import { type Selectable, sql } from 'kysely';
import { isPostgresDb, isUniqueViolation } from '../../platform/db/database.js';
import {
  countUpTo,
  findLive,
  insertRecord,
  listLive,
  type PageOf,
  type PageRequest,
  pageOf,
  softDeleteRecord,
  updateRecord,
} from '../../platform/db/records.js';
import { insertScoped, type Scope, selectScoped, updateScoped } from '../../platform/db/scope.js';
import type { IotAlertsTable, IotDevicesTable, IotRulesTable } from '../../platform/db/tables/iot.js';
import type { Db } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import type { RuleState } from './thresholds.js';

export type DeviceRow = Selectable<IotDevicesTable>;
export type RuleRow = Selectable<IotRulesTable>;
export type AlertRow = Selectable<IotAlertsTable> & { device_code: string; zone_id: number | null };

export interface Page {
  offset: number;
  limit: number;
}

function codeTaken(err: unknown): never {
  if (isUniqueViolation(err))
    throw new AppError('http.validation_failed', 422, {}, [{ field: 'code', message: 'field.taken' }]);
  throw err;
}

// Devices

export async function insertDevice(
  scope: Scope,
  device: { code: string; name: string; zone_id: number | null; heartbeat_timeout_seconds: number },
  now: number,
): Promise<number> {
  try {
    return await insertRecord(
      scope,
      'iot_devices',
      { ...device, last_heartbeat_at: null, is_online: 0, offline_at: null },
      now,
    );
  } catch (err) {
    codeTaken(err);
  }
}

export async function updateDevice(
  scope: Scope,
  id: number,
  patch: Partial<Pick<DeviceRow, 'code' | 'name' | 'zone_id' | 'heartbeat_timeout_seconds'>>,
  now: number,
): Promise<boolean> {
  try {
    return await updateRecord(scope, 'iot_devices', id, patch, now);
  } catch (err) {
    codeTaken(err);
  }
}

export async function replaceDeviceParcels(
  scope: Scope,
  deviceId: number,
  parcelIds: readonly number[],
): Promise<void> {
  await scope.db
    .deleteFrom('iot_device_parcels')
    .where('tenant_id', '=', scope.tenantId)
    .where('device_id', '=', deviceId)
    .execute();
  if (parcelIds.length > 0) {
    await insertScoped(
      scope,
      'iot_device_parcels',
      parcelIds.map((parcel_id) => ({ device_id: deviceId, parcel_id })),
    ).execute();
  }
}

export async function findDevice(scope: Scope, id: number): Promise<DeviceRow | undefined> {
  return findLive(scope, 'iot_devices', id);
}

export async function findDevicesByCodes(scope: Scope, codes: readonly string[]): Promise<DeviceRow[]> {
  if (codes.length === 0) return [];
  return selectScoped(scope, 'iot_devices')
    .selectAll()
    .where('code', 'in', codes)
    .where('deleted_at', 'is', null)
    .execute();
}

/**
 * Locks the devices' rows until the transaction ends (PostgreSQL), so concurrent batches for one
 * device apply their readings one after the other and an alert is never raised twice. Answers the
 * ids still live once locked (a device deleted meanwhile takes no readings).
 */
export async function lockLiveDevices(scope: Scope, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0 || !isPostgresDb(scope.db)) return new Set(ids);
  const rows = await selectScoped(scope, 'iot_devices')
    .select('id')
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
  return new Set(rows.map((r) => r.id));
}

export async function listDevices(scope: Scope, page: PageRequest): Promise<PageOf<DeviceRow>> {
  return listLive(scope, 'iot_devices', page);
}

export async function parcelIdsByDevice(
  scope: Scope,
  deviceIds: readonly number[],
): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>(deviceIds.map((id) => [id, []]));
  if (deviceIds.length === 0) return map;
  const rows = await selectScoped(scope, 'iot_device_parcels')
    .select(['device_id', 'parcel_id'])
    .where('device_id', 'in', deviceIds)
    .orderBy('parcel_id')
    .execute();
  for (const row of rows) map.get(row.device_id)?.push(row.parcel_id);
  return map;
}

export async function softDeleteDevice(scope: Scope, id: number, now: number): Promise<boolean> {
  if (!(await softDeleteRecord(scope, 'iot_devices', id, now))) return false;
  // Rules aimed at this device go with it.
  await updateScoped(scope, 'iot_rules')
    .set({ deleted_at: now, updated_at: now })
    .where('device_id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
  return true;
}

/**
 * Every accepted reading and every heartbeat: the device is heard from now, and online. The
 * heartbeat never moves backwards (a slow transaction that read its clock earlier loses).
 */
export async function recordHeartbeats(
  scope: Scope,
  deviceIds: readonly number[],
  now: number,
): Promise<void> {
  if (deviceIds.length === 0) return;
  const at = sql<number>`cast(${now} as bigint)`;
  await updateScoped(scope, 'iot_devices')
    .set({
      last_heartbeat_at: sql<number>`case when last_heartbeat_at is null or last_heartbeat_at < ${at} then ${at} else last_heartbeat_at end`,
      is_online: 1,
      offline_at: null,
    })
    .where('id', 'in', deviceIds)
    .where('deleted_at', 'is', null)
    .execute();
}

export interface OverdueDevice {
  tenant_id: number;
  id: number;
  last_heartbeat_at: number;
}

/**
 * Online devices whose last heartbeat is older than their timeout, across tenants. With
 * `notBefore`, only devices whose whole timeout has passed since then: after an outage of the
 * service itself, devices get a full timeout to be heard from again before they count as silent.
 */
export async function findOverdueDevices(
  db: Db,
  now: number,
  limit: number,
  notBefore?: number,
): Promise<OverdueDevice[]> {
  let query = db
    .selectFrom('iot_devices')
    .select(['tenant_id', 'id', 'last_heartbeat_at', 'heartbeat_timeout_seconds'])
    .where('is_online', '=', 1)
    .where('deleted_at', 'is', null)
    .where('last_heartbeat_at', 'is not', null)
    // The cast keeps PostgreSQL from typing the parameter after the integer column beside it.
    .where((eb) =>
      eb(
        'last_heartbeat_at',
        '<',
        eb(eb.cast<number>(eb.val(now), 'bigint'), '-', eb('heartbeat_timeout_seconds', '*', eb.val(1000))),
      ),
    )
    .orderBy('last_heartbeat_at')
    .limit(limit);
  if (notBefore !== undefined) {
    query = query.where('heartbeat_timeout_seconds', '<=', Math.floor((now - notBefore) / 1000));
  }
  const rows = await query.execute();
  return rows.map((r) => ({ tenant_id: r.tenant_id, id: r.id, last_heartbeat_at: r.last_heartbeat_at! }));
}

/**
 * Marks a device offline only if it is still online with the heartbeat the sweeper saw: of two
 * sweepers racing, and of a sweeper racing a fresh heartbeat, exactly one wins.
 */
export async function markDeviceOffline(
  scope: Scope,
  id: number,
  seenHeartbeat: number,
  now: number,
): Promise<boolean> {
  const result = await updateScoped(scope, 'iot_devices')
    .set({ is_online: 0, offline_at: now })
    .where('id', '=', id)
    .where('is_online', '=', 1)
    .where('last_heartbeat_at', '=', seenHeartbeat)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

// Rules

export type RuleInsert = Pick<
  RuleRow,
  'device_id' | 'zone_id' | 'metric' | 'operator' | 'threshold' | 'severity' | 'message'
>;

export async function insertRule(scope: Scope, rule: RuleInsert, now: number): Promise<number> {
  return insertRecord(scope, 'iot_rules', rule, now);
}

export async function updateRule(
  scope: Scope,
  id: number,
  patch: Partial<RuleInsert>,
  now: number,
): Promise<boolean> {
  return updateRecord(scope, 'iot_rules', id, patch, now);
}

/** A changed rule starts from a clean state: the next reading decides anew. */
export async function resetRuleStates(scope: Scope, ruleId: number): Promise<void> {
  await scope.db
    .deleteFrom('iot_rule_states')
    .where('tenant_id', '=', scope.tenantId)
    .where('rule_id', '=', ruleId)
    .execute();
}

export async function findRule(scope: Scope, id: number): Promise<RuleRow | undefined> {
  return findLive(scope, 'iot_rules', id);
}

export async function listRules(scope: Scope, page: PageRequest): Promise<PageOf<RuleRow>> {
  return listLive(scope, 'iot_rules', page);
}

export async function softDeleteRule(scope: Scope, id: number, now: number): Promise<boolean> {
  return softDeleteRecord(scope, 'iot_rules', id, now);
}

/** Live rules aimed at any of these devices, directly or through their zone. */
export async function rulesForDevices(
  scope: Scope,
  devices: readonly Pick<DeviceRow, 'id' | 'zone_id'>[],
): Promise<RuleRow[]> {
  if (devices.length === 0) return [];
  const deviceIds = devices.map((d) => d.id);
  const zoneIds = [...new Set(devices.map((d) => d.zone_id).filter((z): z is number => z !== null))];
  return selectScoped(scope, 'iot_rules')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where((eb) => {
      const targets = [eb('device_id', 'in', deviceIds)];
      if (zoneIds.length > 0) targets.push(eb('zone_id', 'in', zoneIds));
      return eb.or(targets);
    })
    .orderBy('id')
    .execute();
}

export function stateKey(ruleId: number, deviceId: number): string {
  return `${ruleId}:${deviceId}`;
}

export async function loadRuleStates(
  scope: Scope,
  ruleIds: readonly number[],
  deviceIds: readonly number[],
): Promise<Map<string, RuleState>> {
  const map = new Map<string, RuleState>();
  if (ruleIds.length === 0 || deviceIds.length === 0) return map;
  const rows = await selectScoped(scope, 'iot_rule_states')
    .select(['rule_id', 'device_id', 'breached', 'last_recorded_at'])
    .where('rule_id', 'in', ruleIds)
    .where('device_id', 'in', deviceIds)
    .execute();
  for (const row of rows) {
    map.set(stateKey(row.rule_id, row.device_id), {
      breached: row.breached === 1,
      lastRecordedAt: row.last_recorded_at,
    });
  }
  return map;
}

export async function saveRuleStates(
  scope: Scope,
  states: readonly { ruleId: number; deviceId: number; state: RuleState }[],
  now: number,
): Promise<void> {
  for (let i = 0; i < states.length; i += 200) {
    const rows = states.slice(i, i + 200).map(({ ruleId, deviceId, state }) => ({
      rule_id: ruleId,
      device_id: deviceId,
      breached: state.breached ? 1 : 0,
      last_recorded_at: state.lastRecordedAt ?? 0,
      updated_at: now,
    }));
    await insertScoped(scope, 'iot_rule_states', rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'rule_id', 'device_id']).doUpdateSet((eb) => ({
          breached: eb.ref('excluded.breached'),
          last_recorded_at: eb.ref('excluded.last_recorded_at'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

// Readings and alerts

export interface ReadingInsert {
  device_id: number;
  metric: string;
  value: number;
  recorded_at: number;
  received_at: number;
}

/** Inserts readings in chunks that stay under both dialects' parameter limits; answers their ids. */
export async function insertReadings(scope: Scope, readings: readonly ReadingInsert[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < readings.length; i += 500) {
    const rows = await insertScoped(scope, 'iot_readings', readings.slice(i, i + 500))
      .returning('id')
      .execute();
    ids.push(...rows.map((r) => Number(r.id)));
  }
  return ids;
}

export async function insertAlert(
  scope: Scope,
  alert: Omit<Selectable<IotAlertsTable>, 'id' | 'tenant_id'>,
): Promise<number> {
  const row = await insertScoped(scope, 'iot_alerts', alert).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Alerts, newest first; counted up to COUNT_LIMIT (a tenant raises alerts without end). */
export async function listAlerts(
  scope: Scope,
  filter: { deviceId?: number | undefined },
  page: PageRequest,
): Promise<PageOf<AlertRow>> {
  let base = selectScoped(scope, 'iot_alerts');
  if (filter.deviceId !== undefined) base = base.where('iot_alerts.device_id', '=', filter.deviceId);
  return pageOf(
    page,
    (limit, offset) =>
      base
        .innerJoin('iot_devices', (join) =>
          join
            .onRef('iot_devices.tenant_id', '=', 'iot_alerts.tenant_id')
            .onRef('iot_devices.id', '=', 'iot_alerts.device_id'),
        )
        .selectAll('iot_alerts')
        .select(['iot_devices.code as device_code', 'iot_devices.zone_id'])
        .orderBy('iot_alerts.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => countUpTo(scope.db, base.select('iot_alerts.id')),
  );
}

export async function listReadings(
  scope: Scope,
  filter: {
    deviceId: number;
    metric?: string | undefined;
    from?: number | undefined;
    to?: number | undefined;
  },
  page: Page,
): Promise<{ id: number; metric: string; value: number; recorded_at: number; received_at: number }[]> {
  let query = selectScoped(scope, 'iot_readings')
    .select(['id', 'metric', 'value', 'recorded_at', 'received_at'])
    .where('device_id', '=', filter.deviceId);
  if (filter.metric !== undefined) query = query.where('metric', '=', filter.metric);
  if (filter.from !== undefined) query = query.where('recorded_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('recorded_at', '<=', filter.to);
  const rows = await query
    .orderBy('recorded_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}
