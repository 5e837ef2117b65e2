// IoT devices: create, change and delete them, and hear from them (a heartbeat; every accepted
// reading is one too, see reading.service.ts).
import { lockLive } from '../../platform/db/records.js';
import { checkReferences } from '../../platform/db/references.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import { refOrNull } from '../../platform/resource/input.js';
import type { ListAnswer } from '../../platform/resource/paging.js';
import { type DeviceAnswer, toDeviceAnswer } from './device.presenter.js';
import {
  devEuiTaken,
  findDevice,
  findDeviceByDevEui,
  findDevicesByCodes,
  insertDevice,
  listDevices,
  parcelIdsByDevice,
  recordHeartbeats,
  replaceDeviceParcels,
  softDeleteDevice,
  updateDevice,
} from './device.repository.js';
import { deleteUnclaimedDevice } from './lorawan.repository.js';

export const DEFAULT_HEARTBEAT_TIMEOUT_SECONDS = 300;
export const DEVICE_CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
/** A LoRaWAN DevEUI as sent: 16 hexadecimal digits, any case. */
export const DEV_EUI_PATTERN = /^[0-9A-Fa-f]{16}$/;

export interface DeviceInput {
  code?: string | undefined;
  name?: string | undefined;
  zone_id?: number | null | undefined;
  parcel_ids?: number[] | undefined;
  heartbeat_timeout_seconds?: number | undefined;
  /** null clears it (on update); stored and answered in lower case. */
  dev_eui?: string | null | undefined;
}

async function checkDeviceInput(scope: Scope, input: DeviceInput): Promise<void> {
  const errors: FieldError[] = [];
  if (input.code !== undefined && !DEVICE_CODE_PATTERN.test(input.code))
    errors.push({ field: 'code', message: 'field.pattern' });
  if (typeof input.dev_eui === 'string' && !DEV_EUI_PATTERN.test(input.dev_eui))
    errors.push({ field: 'dev_eui', message: 'iot.dev_eui_pattern' });
  errors.push(
    ...(await checkReferences(scope, [
      { field: 'zone_id', table: 'zones', id: input.zone_id },
      { field: 'parcel_ids', table: 'parcels', id: input.parcel_ids },
    ])),
  );
  if (errors.length > 0) throw validationFailed(errors);
}

/** The DevEUI as stored (lower case), or null; undefined when the input leaves it alone. */
function devEuiOf(input: DeviceInput): string | null | undefined {
  return typeof input.dev_eui === 'string' ? input.dev_eui.toLowerCase() : input.dev_eui;
}

/** A 409 when another live device of the tenant already has this DevEUI. */
async function assertDevEuiFree(scope: Scope, devEui: string | null | undefined, self?: number) {
  if (!devEui) return;
  const holder = await findDeviceByDevEui(scope, devEui);
  if (holder && holder.id !== self) throw devEuiTaken(devEui);
}

/** A live device of the scope's tenant as answered, with its parcels; 404 when there is none. */
export async function deviceAnswer(scope: Scope, id: number): Promise<DeviceAnswer> {
  const row = await findDevice(scope, id);
  if (!row) throw notFound();
  const parcels = await parcelIdsByDevice(scope, [id]);
  return toDeviceAnswer(row, parcels.get(id) ?? []);
}

async function listDeviceAnswers(ctx: RequestContext, query: PageQuery): Promise<ListAnswer> {
  const { rows, total, hasNext } = await listDevices(ctx.scope, query);
  const parcels = await parcelIdsByDevice(
    ctx.scope,
    rows.map((r) => r.id),
  );
  return { items: rows.map((row) => toDeviceAnswer(row, parcels.get(row.id) ?? [])), total, hasNext };
}

/** Creates a device (the create route, and adopting an unclaimed LoRaWAN device). */
export async function createDevice(
  ctx: RequestContext,
  sent: DeviceInput & { code: string },
): Promise<DeviceAnswer> {
  const input = { ...sent, zone_id: refOrNull(sent.zone_id) };
  await checkDeviceInput(ctx.scope, input);
  const devEui = devEuiOf(input) ?? null;
  return inTransaction(ctx.scope, async (tx) => {
    await assertDevEuiFree(tx, devEui);
    const id = await insertDevice(
      tx,
      {
        code: input.code,
        name: input.name?.trim() || input.code,
        zone_id: input.zone_id ?? null,
        heartbeat_timeout_seconds: input.heartbeat_timeout_seconds ?? DEFAULT_HEARTBEAT_TIMEOUT_SECONDS,
        dev_eui: devEui,
      },
      ctx.clock.now(),
    );
    await replaceDeviceParcels(tx, id, [...new Set(input.parcel_ids ?? [])]);
    // A DevEUI heard of before is claimed now: it leaves the unclaimed list.
    if (devEui) await deleteUnclaimedDevice(tx, devEui);
    return deviceAnswer(tx, id);
  });
}

async function changeDevice(ctx: RequestContext, id: number, sent: DeviceInput): Promise<DeviceAnswer> {
  const input = { ...sent, zone_id: refOrNull(sent.zone_id) };
  await checkDeviceInput(ctx.scope, input);
  return inTransaction(ctx.scope, async (tx) => {
    const current = await findDevice(tx, id);
    if (!current) throw notFound();
    const patch: Parameters<typeof updateDevice>[2] = {};
    if (input.code !== undefined) patch.code = input.code;
    // A blank name falls back to the code, as on create.
    if (input.name !== undefined) patch.name = input.name.trim() || input.code || current.code;
    if (input.zone_id !== undefined) patch.zone_id = input.zone_id;
    if (input.heartbeat_timeout_seconds !== undefined)
      patch.heartbeat_timeout_seconds = input.heartbeat_timeout_seconds;
    const devEui = devEuiOf(input);
    if (devEui !== undefined) {
      await assertDevEuiFree(tx, devEui, id);
      patch.dev_eui = devEui;
      if (devEui) await deleteUnclaimedDevice(tx, devEui);
    }
    if (!(await updateDevice(tx, id, patch, ctx.clock.now()))) throw notFound();
    if (input.parcel_ids !== undefined) await replaceDeviceParcels(tx, id, [...new Set(input.parcel_ids)]);
    return deviceAnswer(tx, id);
  });
}

async function removeDevice(ctx: RequestContext, id: number): Promise<void> {
  const removed = await inTransaction(ctx.scope, (tx) => softDeleteDevice(tx, id, ctx.clock.now()));
  if (!removed) throw notFound();
}

export const deviceService = {
  list: listDeviceAnswers,
  get: (ctx: RequestContext, id: number) => deviceAnswer(ctx.scope, id),
  lock: (ctx: RequestContext, id: number) => lockLive(ctx.scope, 'iot_devices', id),
  create: createDevice,
  update: changeDevice,
  remove: removeDevice,
};

/** A device says it is alive: online again, heard from now. An unknown code is a 422. */
export async function recordHeartbeat(ctx: RequestContext, deviceCode: string): Promise<DeviceAnswer> {
  return inTransaction(ctx.scope, async (tx) => {
    const [device] = await findDevicesByCodes(tx, [deviceCode]);
    if (!device) throw validationFailed([{ field: 'device_code', message: 'field.not_found' }]);
    await recordHeartbeats(tx, [device.id], ctx.clock.now());
    return deviceAnswer(tx, device.id);
  });
}
