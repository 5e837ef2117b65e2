// LoRaWAN events into Furrow: an event of a known device is stored once (its readings through the
// readings ingestion, so rules and roll-ups apply as to any reading) and is a heartbeat; an event
// of a DevEUI no live device has lists that device for adoption. Also the unclaimed-devices list,
// adopting one (a device with its DevEUI) and dismissing one.
import { isoTime } from '../../platform/dates.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import type { ListAnswer } from '../../platform/resource/paging.js';
import type { OutboxDeps } from '../webhooks/outbox.js';
import type { DeviceAnswer } from './device.presenter.js';
import { findDeviceByDevEui, recordHeartbeats } from './device.repository.js';
import { createDevice } from './device.service.js';
import type { UplinkMessage } from './lorawan.js';
import {
  claimIngestKey,
  deleteUnclaimedDevice,
  findUnclaimedDevice,
  listUnclaimedDevices,
  recordUnclaimedDevice,
  type UnclaimedDeviceRow,
} from './lorawan.repository.js';
import { ingestReadings } from './reading.service.js';

/** The last payload of an unclaimed device is kept to this many bytes of JSON. */
export const MAX_KEPT_PAYLOAD_BYTES = 4096;

export interface IngestOutcome {
  /** stored: a known device's event (readings and heartbeat); duplicate: stored before, nothing done. */
  status: 'stored' | 'duplicate' | 'unclaimed';
  device_id: number | null;
  /** Readings stored. */
  readings: number;
}

/**
 * Stores one network-server event in one transaction: the ingest key, the readings (with their
 * alerts and webhook events, through the outbox) and the heartbeat, or nothing when the key was
 * already stored. A reading refused by the ingestion (a time more than an hour ahead) refuses the
 * whole event with a 422, storing nothing.
 */
export async function ingestUplink(
  deps: OutboxDeps,
  scope: Scope,
  message: UplinkMessage,
): Promise<IngestOutcome> {
  return inTransaction(scope, async (tx) => {
    const now = deps.clock.now();
    const device = await findDeviceByDevEui(tx, message.devEui);
    if (!device) {
      await recordUnclaimedDevice(
        tx,
        {
          devEui: message.devEui,
          source: message.source,
          name: message.deviceName,
          payload: keptPayload(message.payload),
        },
        now,
      );
      return { status: 'unclaimed', device_id: null, readings: 0 };
    }
    if (message.ingestKey !== null && !(await claimIngestKey(tx, message.ingestKey, now))) {
      return { status: 'duplicate', device_id: device.id, readings: 0 };
    }
    if (message.readings.length === 0) {
      await recordHeartbeats(tx, [device.id], now);
      return { status: 'stored', device_id: device.id, readings: 0 };
    }
    const results = await ingestReadings(
      deps,
      tx,
      message.readings.map((r) => ({
        device_code: device.code,
        metric: r.metric,
        value: r.value,
        recorded_at: new Date(r.recordedAt).toISOString(),
      })),
    );
    const refused = results.flatMap((r) => (r.status === 'rejected' ? r.errors : []));
    if (refused.length > 0) {
      const timeField = message.source === 'tts' ? 'uplink_message.received_at' : 'time';
      // Every reading of an event shares its time: one error per field and message is enough.
      const named = refused.map((e) => (e.field.endsWith('.recorded_at') ? { ...e, field: timeField } : e));
      throw validationFailed([...new Map(named.map((e) => [`${e.field} ${e.message}`, e])).values()]);
    }
    return { status: 'stored', device_id: device.id, readings: results.length };
  });
}

/** A payload as kept with an unclaimed device: JSON text of at most MAX_KEPT_PAYLOAD_BYTES bytes. */
export function keptPayload(payload: unknown): string | null {
  if (payload === undefined || payload === null) return null;
  const text = JSON.stringify(payload);
  if (Buffer.byteLength(text) <= MAX_KEPT_PAYLOAD_BYTES) return text;
  // Cut on a character boundary: a character split by the cut decodes as U+FFFD, dropped here.
  return Buffer.from(text)
    .subarray(0, MAX_KEPT_PAYLOAD_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

export interface UnclaimedDeviceAnswer {
  dev_eui: string;
  source: string;
  name: string | null;
  first_seen_at: string;
  last_seen_at: string;
  seen_count: number;
  last_payload: string | null;
}

function toUnclaimedAnswer(row: UnclaimedDeviceRow): UnclaimedDeviceAnswer {
  return {
    dev_eui: row.dev_eui,
    source: row.source,
    name: row.name,
    first_seen_at: isoTime(row.first_seen_at),
    last_seen_at: isoTime(row.last_seen_at),
    seen_count: Number(row.seen_count),
    last_payload: row.last_payload,
  };
}

export async function listUnclaimedDeviceAnswers(ctx: RequestContext, query: PageQuery): Promise<ListAnswer> {
  const { rows, total, hasNext } = await listUnclaimedDevices(ctx.scope, query);
  return { items: rows.map(toUnclaimedAnswer), total, hasNext };
}

export async function getUnclaimedDevice(
  ctx: RequestContext,
  devEui: string,
): Promise<UnclaimedDeviceAnswer> {
  const row = await findUnclaimedDevice(ctx.scope, devEui.toLowerCase());
  if (!row) throw notFound();
  return toUnclaimedAnswer(row);
}

export interface AdoptInput {
  code?: string | undefined;
  name?: string | undefined;
  zone_id?: number | null | undefined;
  heartbeat_timeout_seconds?: number | undefined;
}

/**
 * Makes an unclaimed device a device with its DevEUI, in one transaction: the code defaults to the
 * DevEUI, the name to the network server's name (else the DevEUI). The device leaves the list; its
 * next event is stored. 404 when it is not listed (another adoption took it), 409 when a live device
 * has the DevEUI meanwhile.
 */
export async function adoptUnclaimedDevice(
  ctx: RequestContext,
  devEui: string,
  input: AdoptInput,
): Promise<DeviceAnswer> {
  const eui = devEui.toLowerCase();
  return inTransaction(ctx.scope, async (tx) => {
    const row = await findUnclaimedDevice(tx, eui);
    // Deleting first claims the row: of two adoptions at once, the second finds nothing to delete.
    if (!row || !(await deleteUnclaimedDevice(tx, eui))) throw notFound();
    return createDevice(
      { ...ctx, scope: tx },
      {
        code: input.code ?? eui,
        name: input.name?.trim() || row.name || eui,
        zone_id: input.zone_id,
        heartbeat_timeout_seconds: input.heartbeat_timeout_seconds,
        dev_eui: eui,
      },
    );
  });
}

/** Removes a device from the unclaimed list (it is listed again if it is heard from again). */
export async function dismissUnclaimedDevice(ctx: RequestContext, devEui: string): Promise<void> {
  if (!(await deleteUnclaimedDevice(ctx.scope, devEui.toLowerCase()))) throw notFound();
}
