// Device statements, one small function each. Tenant-owned rows are reached through the scope helpers;
// the offline sweeper's finder is the one cross-tenant reader (it is a system process, not a request).
// Hearing from a device ends its outage here, with its `iot.device.online` event.
import { type Selectable, sql } from 'kysely';
import { isPostgresDb, isUniqueViolation } from '../../platform/db/database.js';
import {
  findLive,
  insertRecord,
  listLive,
  type PageOf,
  type PageRequest,
  softDeleteRecord,
  updateRecord,
} from '../../platform/db/records.js';
import {
  insertScoped,
  inTransaction,
  type Scope,
  selectScoped,
  updateScoped,
} from '../../platform/db/scope.js';
import type { IotDevicesTable } from '../../platform/db/tables/iot.js';
import type { Db } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { emitEvent } from '../webhooks/outbox.js';

export type DeviceRow = Selectable<IotDevicesTable>;

/** Another live device of the tenant has this DevEUI: a 409 naming it. */
export const devEuiTaken = (devEui: string) => new AppError('iot.dev_eui_taken', 409, { dev_eui: devEui });

/** A unique violation of the DevEUI index, told from one of the code's by the index's name. */
function isDevEuiViolation(err: unknown): boolean {
  const e = err as { constraint?: unknown; message?: unknown };
  return e.constraint === 'iot_devices_tenant_dev_eui_key' || String(e.message).includes('.dev_eui');
}

function codeTaken(err: unknown, devEui: string | null | undefined): never {
  if (isUniqueViolation(err) && devEui && isDevEuiViolation(err)) throw devEuiTaken(devEui);
  if (isUniqueViolation(err))
    throw new AppError('http.validation_failed', 422, {}, [{ field: 'code', message: 'field.taken' }]);
  throw err;
}

export async function insertDevice(
  scope: Scope,
  device: {
    code: string;
    name: string;
    zone_id: number | null;
    heartbeat_timeout_seconds: number;
    dev_eui?: string | null;
  },
  now: number,
): Promise<number> {
  try {
    return await insertRecord(
      scope,
      'iot_devices',
      { dev_eui: null, ...device, last_heartbeat_at: null, is_online: 0, offline_at: null },
      now,
    );
  } catch (err) {
    codeTaken(err, device.dev_eui);
  }
}

export async function updateDevice(
  scope: Scope,
  id: number,
  patch: Partial<Pick<DeviceRow, 'code' | 'name' | 'zone_id' | 'heartbeat_timeout_seconds' | 'dev_eui'>>,
  now: number,
): Promise<boolean> {
  try {
    return await updateRecord(scope, 'iot_devices', id, patch, now);
  } catch (err) {
    codeTaken(err, patch.dev_eui);
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

/**
 * The live devices of the tenant with these codes. `lock`: on PostgreSQL their rows are locked, in
 * id order, until the transaction ends, as lockLiveDevices does (one statement instead of two).
 */
export async function findDevicesByCodes(
  scope: Scope,
  codes: readonly string[],
  options: { lock?: boolean } = {},
): Promise<DeviceRow[]> {
  if (codes.length === 0) return [];
  const query = selectScoped(scope, 'iot_devices')
    .selectAll()
    .where('code', 'in', codes)
    .where('deleted_at', 'is', null);
  if (options.lock && isPostgresDb(scope.db)) return query.orderBy('id').forUpdate().execute();
  return query.execute();
}

/** The live device of the tenant with this DevEUI (lower-case hex), if any. */
export async function findDeviceByDevEui(scope: Scope, devEui: string): Promise<DeviceRow | undefined> {
  return selectScoped(scope, 'iot_devices')
    .selectAll()
    .where('dev_eui', '=', devEui)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Locks the devices' rows until the transaction ends (PostgreSQL), so concurrent batches for one
 * device apply their readings one after the other and an alert is never raised twice. Answers those
 * still live once locked, as they are then (a device deleted meanwhile takes no readings, and one
 * the sweeper marked offline meanwhile is seen offline). SQLite's transactions take turns: the
 * devices are answered as given.
 */
export async function lockLiveDevices(scope: Scope, devices: readonly DeviceRow[]): Promise<DeviceRow[]> {
  if (devices.length === 0 || !isPostgresDb(scope.db)) return [...devices];
  return selectScoped(scope, 'iot_devices')
    .selectAll()
    .where(
      'id',
      'in',
      devices.map((d) => d.id),
    )
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
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
 *
 * A device the sweeper marked offline (it raised `iot.device.offline`) comes back here, whichever
 * path heard from it, so this is where `iot.device.online` is raised, once per outage, in the
 * caller's transaction. The devices are read first and locked (PostgreSQL; SQLite's transactions
 * take turns): of two heartbeats racing, the second finds the device online already, and a sweep
 * racing a heartbeat either loses (the heartbeat moved) or is waited for and its outage ended.
 * Answers the ids of the devices that came back online.
 */
export async function recordHeartbeats(
  scope: Scope,
  deviceIds: readonly number[],
  now: number,
): Promise<number[]> {
  if (deviceIds.length === 0) return [];
  return inTransaction(scope, (tx) => hearFrom(tx, deviceIds, now));
}

async function hearFrom(scope: Scope, deviceIds: readonly number[], now: number): Promise<number[]> {
  // Every device heard from is locked, not only those offline now: a sweeper marking one offline
  // at this moment is waited for, and its outage is then seen and ended here.
  let heard = selectScoped(scope, 'iot_devices')
    .select(['id', 'code', 'name', 'zone_id', 'is_online', 'offline_at'])
    .where('id', 'in', deviceIds)
    .where('deleted_at', 'is', null)
    .orderBy('id');
  if (isPostgresDb(scope.db)) heard = heard.forUpdate();
  const devices = await heard.execute();
  await markHeard(scope, deviceIds, now);
  return announceBackOnline(scope, devices, now);
}

/** The devices as a heartbeat needs them: who they are, and whether the sweeper marked them offline. */
export type HeardDevice = Pick<DeviceRow, 'id' | 'code' | 'name' | 'zone_id' | 'is_online' | 'offline_at'>;

/** A heartbeat's update: heard from at `now` (never moving backwards), online. */
export async function markHeard(scope: Scope, deviceIds: readonly number[], now: number): Promise<void> {
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

/**
 * `iot.device.online` for those of `devices` the sweeper had marked offline, as the caller's
 * transaction read them under lock before it recorded their heartbeats (recordHeartbeats, or
 * ingestion, which locks its devices first). `parcels`: the devices' parcels when the caller has
 * them already. Answers the ids of the devices that came back online.
 */
export async function announceBackOnline(
  scope: Scope,
  devices: readonly HeardDevice[],
  now: number,
  parcels?: ReadonlyMap<number, number[]>,
): Promise<number[]> {
  const back = devices.filter((d) => d.is_online === 0 && d.offline_at !== null);
  if (back.length === 0) return [];
  const parcelsOf =
    parcels ??
    (await parcelIdsByDevice(
      scope,
      back.map((d) => d.id),
    ));
  // The event's time is the heartbeat's: the same instant the caller's clock gave.
  const atHeartbeat = { clock: { now: () => now } };
  for (const device of back) {
    const offlineSince = device.offline_at ?? now;
    await emitEvent(atHeartbeat, scope, 'iot.device.online', {
      device_id: device.id,
      device_code: device.code,
      device_name: device.name,
      zone_id: device.zone_id,
      parcel_ids: parcelsOf.get(device.id) ?? [],
      offline_since: new Date(offlineSince).toISOString(),
      online_at: new Date(now).toISOString(),
      offline_seconds: Math.max(0, Math.floor((now - offlineSince) / 1000)),
    });
  }
  return back.map((d) => d.id);
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
