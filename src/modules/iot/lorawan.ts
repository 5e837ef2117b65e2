// LoRaWAN network-server events read into one shape: the device's DevEUI, the readings of its
// decoded payload and the key that tells a repeated event. Pure parsing, no I/O: the HTTP routes and
// the MQTT ingestion both feed bodies through here and hand the result to lorawan.service.ts.
//
// ChirpStack v4 posts its protobuf messages in their JSON mapping (camelCase, `deviceInfo.devEui` in
// hex); ChirpStack v3 named the device `devEUI` (base64 bytes in its "json" marshaler, hex in the
// legacy one) and sent the decoded payload as the string `objectJSON`. The Things Stack v3 posts
// `{end_device_ids, correlation_ids, received_at, <kind>: {...}}`, the kind being uplink_message,
// join_accept, downlink_ack and so on.
import { createHash } from 'node:crypto';
import { parseTimestamp } from '../../platform/dates.js';
import type { FieldError } from '../../platform/errors.js';

export interface UplinkMessage {
  source: 'chirpstack' | 'tts';
  /** 16 hexadecimal digits, lower case. */
  devEui: string;
  /** The name the network server knows the device by. */
  deviceName: string | null;
  /** Tells a repeated event (the same key is stored once per tenant); null: never a duplicate. */
  ingestKey: string | null;
  readings: { metric: string; value: number; recordedAt: number }[];
  /** The decoded payload (kept with a device not yet adopted); null for events without one. */
  payload: unknown;
}

/** The `event` values of ChirpStack's HTTP integration (v4; `error` is v3's name for `log`). */
export const CHIRPSTACK_EVENTS = [
  'up',
  'status',
  'join',
  'ack',
  'txack',
  'log',
  'location',
  'integration',
  'error',
] as const;
export type ChirpstackEvent = (typeof CHIRPSTACK_EVENTS)[number];

export function isChirpstackEvent(value: unknown): value is ChirpstackEvent {
  return typeof value === 'string' && (CHIRPSTACK_EVENTS as readonly string[]).includes(value);
}

/** The message kinds of The Things Stack's webhooks; only uplink_message carries readings. */
export const TTS_MESSAGE_KINDS = [
  'uplink_message',
  'uplink_normalized',
  'join_accept',
  'downlink_ack',
  'downlink_nack',
  'downlink_sent',
  'downlink_failed',
  'downlink_queued',
  'downlink_queue_invalidated',
  'location_solved',
  'service_data',
] as const;

/** At most this many numeric values are read from one event (as many readings as one batch holds). */
export const MAX_UPLINK_READINGS = 1000;
export const METRIC_MAX_LENGTH = 64;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const notAnObject = (field: string): FieldError => ({
  field,
  message: 'field.type',
  params: { type: 'a JSON object' },
});

/**
 * A metric name from the path of a value in a decoded payload: the keys (and array positions)
 * joined with `.`, lower-cased, every character other than a-z, 0-9, `_` and `.` made `_`, cut to
 * 64 characters. `{"Air": {"Temp °C": 21}}` gives `air.temp__c`.
 */
export function metricOfPath(path: readonly (string | number)[]): string {
  return path
    .join('.')
    .toLowerCase()
    .replace(/[^a-z0-9_.]/g, '_')
    .slice(0, METRIC_MAX_LENGTH);
}

/**
 * Every numeric leaf of a decoded payload as a metric and value; booleans count as 1 and 0 (a door
 * open, a leak detected: a rule can watch them). Strings and nulls are skipped. Two paths that give
 * the same metric keep the first value.
 */
export function numericLeaves(payload: unknown): { metric: string; value: number }[] {
  const found = new Map<string, number>();
  const walk = (value: unknown, path: (string | number)[]) => {
    if (typeof value === 'number' || typeof value === 'boolean') {
      const metric = metricOfPath(path);
      const number = typeof value === 'boolean' ? Number(value) : value;
      if (metric !== '' && Number.isFinite(number) && !found.has(metric)) found.set(metric, number);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        walk(item, [...path, index]);
      });
    } else if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    }
  };
  walk(payload, []);
  return [...found].map(([metric, value]) => ({ metric, value }));
}

/** A DevEUI as 16 lower-case hex digits: given in hex (any case), or as 8 bytes of base64 (v3). */
export function normalizeDevEui(value: unknown, base64Allowed = false): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^[0-9A-Fa-f]{16}$/.test(text)) return text.toLowerCase();
  if (base64Allowed && /^[A-Za-z0-9+/]{11}=?$/.test(text)) {
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length === 8) return bytes.toString('hex');
  }
  return undefined;
}

/** JSON with its object keys sorted: the same event always hashes alike, whatever its key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The ingest key of an event that carries no id of its own: a SHA-256 of its canonical JSON. */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** An id the network server gave (a UUID, a ULID): printable ASCII that the key column holds. */
function givenId(value: unknown): string | undefined {
  return typeof value === 'string' && /^[\x21-\x7e]{1,128}$/.test(value) ? value : undefined;
}

/** The time of an event: the first of `candidates` that is set; now when none is. */
function eventTime(candidates: { field: string; value: unknown }[], now: number): number | FieldError {
  for (const { field, value } of candidates) {
    if (value === undefined || value === null || value === '') continue;
    const ms = typeof value === 'string' ? parseTimestamp(value) : undefined;
    return ms ?? { field, message: 'field.timestamp' };
  }
  return now;
}

/** The readings of a decoded payload at one time; errors name the payload's field. */
function readingsOf(
  payload: unknown,
  field: string,
  recordedAt: number,
): UplinkMessage['readings'] | FieldError[] {
  if (payload === undefined || payload === null) return [];
  if (!isObject(payload) && !Array.isArray(payload)) return [notAnObject(field)];
  const leaves = numericLeaves(payload);
  if (leaves.length > MAX_UPLINK_READINGS) {
    return [
      {
        field,
        message: 'iot.too_many_values',
        params: { count: leaves.length, limit: MAX_UPLINK_READINGS },
      },
    ];
  }
  return leaves.map((leaf) => ({ ...leaf, recordedAt }));
}

/** The battery level of a status event (0-100 %), unless the device said it cannot measure it. */
function batteryReading(body: Json, recordedAt: number): UplinkMessage['readings'] {
  const level = body.batteryLevel;
  if (body.batteryLevelUnavailable === true || typeof level !== 'number' || !Number.isFinite(level))
    return [];
  return [{ metric: 'battery_level', value: level, recordedAt }];
}

/**
 * A ChirpStack event of the HTTP integration (or an MQTT event topic): `event` is the `event` query
 * parameter (up, status, join, ...). v4 events and v3 ones (recognised by `devEUI`) both read. Every
 * event names its device; `up` carries readings (every numeric leaf of `object`, at `time`), `status`
 * the battery level. Duplicates are told by `deduplicationId`, or the body's hash without one.
 */
export function parseChirpstackEvent(
  event: string,
  body: unknown,
  now: number,
): UplinkMessage | FieldError[] {
  if (!isObject(body)) return [notAnObject('body')];
  const v3 = body.deviceInfo === undefined && (body.devEUI !== undefined || body.applicationID !== undefined);
  const errors: FieldError[] = [];

  let devEui: string | undefined;
  let deviceName: unknown;
  let payload: unknown;
  let payloadField: string;
  let time: number | FieldError;
  if (v3) {
    devEui = normalizeDevEui(body.devEUI, true);
    if (devEui === undefined)
      errors.push({
        field: 'devEUI',
        message: body.devEUI === undefined ? 'field.required' : 'iot.dev_eui_pattern',
      });
    deviceName = body.deviceName;
    payloadField = typeof body.objectJSON === 'string' ? 'objectJSON' : 'object';
    payload = body.object;
    if (typeof body.objectJSON === 'string' && body.objectJSON.trim() !== '') {
      try {
        payload = JSON.parse(body.objectJSON);
      } catch {
        errors.push({ field: 'objectJSON', message: 'field.type', params: { type: 'JSON text' } });
      }
    }
    const rxInfo = Array.isArray(body.rxInfo) && isObject(body.rxInfo[0]) ? body.rxInfo[0] : {};
    time = eventTime(
      [
        { field: 'publishedAt', value: body.publishedAt },
        { field: 'rxInfo.0.time', value: rxInfo.time },
      ],
      now,
    );
  } else {
    const info = body.deviceInfo;
    if (!isObject(info)) {
      errors.push(
        info === undefined ? { field: 'deviceInfo', message: 'field.required' } : notAnObject('deviceInfo'),
      );
    } else {
      devEui = normalizeDevEui(info.devEui);
      if (devEui === undefined) {
        errors.push({
          field: 'deviceInfo.devEui',
          message: info.devEui === undefined ? 'field.required' : 'iot.dev_eui_pattern',
        });
      }
      deviceName = info.deviceName;
    }
    payloadField = 'object';
    payload = body.object;
    time = eventTime([{ field: 'time', value: body.time }], now);
  }
  if (typeof time !== 'number') errors.push(time);

  let readings: UplinkMessage['readings'] = [];
  if (typeof time === 'number') {
    if (event === 'up') {
      const read = readingsOf(payload, payloadField, time);
      if (isFieldErrors(read)) errors.push(...read);
      else readings = read;
    } else if (event === 'status') {
      readings = batteryReading(body, time);
    }
  }
  if (errors.length > 0 || devEui === undefined) return errors;

  const id = givenId(body.deduplicationId);
  return {
    source: 'chirpstack',
    devEui,
    deviceName: textOrNull(deviceName),
    ingestKey: `chirpstack:${event}:${id ?? `sha256:${bodyHash(body)}`}`,
    readings,
    payload: event === 'up' ? (payload ?? null) : null,
  };
}

/** The kind of a TTS webhook message: the key next to end_device_ids that holds the message. */
export function ttsMessageKind(body: unknown): string {
  if (!isObject(body)) return 'unknown';
  const known = TTS_MESSAGE_KINDS.find((kind) => isObject(body[kind]));
  if (known) return known;
  const envelope = new Set(['end_device_ids', 'correlation_ids', 'received_at', 'unique_id', 'simulated']);
  const other = Object.keys(body).find((key) => !envelope.has(key) && isObject(body[key]));
  return other && /^[a-z0-9_]{1,64}$/.test(other) ? other : 'unknown';
}

/**
 * A message of The Things Stack's webhook integration. The device is `end_device_ids.dev_eui`; an
 * uplink_message carries readings (every numeric leaf of `decoded_payload`, at the uplink's
 * `received_at`); other kinds only say the device is alive. Duplicates are told by the `as:up:`
 * correlation id, or the body's hash without one.
 */
export function parseTtsMessage(body: unknown, now: number): UplinkMessage | FieldError[] {
  if (!isObject(body)) return [notAnObject('body')];
  const errors: FieldError[] = [];
  const ids = body.end_device_ids;
  let devEui: string | undefined;
  if (!isObject(ids)) {
    errors.push(
      ids === undefined
        ? { field: 'end_device_ids', message: 'field.required' }
        : notAnObject('end_device_ids'),
    );
  } else {
    devEui = normalizeDevEui(ids.dev_eui);
    if (devEui === undefined) {
      errors.push({
        field: 'end_device_ids.dev_eui',
        message: ids.dev_eui === undefined ? 'field.required' : 'iot.dev_eui_pattern',
      });
    }
  }
  const kind = ttsMessageKind(body);
  const uplink = kind === 'uplink_message' ? (body.uplink_message as Json) : undefined;

  let readings: UplinkMessage['readings'] = [];
  if (uplink) {
    const time = eventTime(
      [
        { field: 'uplink_message.received_at', value: uplink.received_at },
        { field: 'received_at', value: body.received_at },
      ],
      now,
    );
    if (typeof time !== 'number') errors.push(time);
    else {
      const read = readingsOf(uplink.decoded_payload, 'uplink_message.decoded_payload', time);
      if (isFieldErrors(read)) errors.push(...read);
      else readings = read;
    }
  }
  if (errors.length > 0 || devEui === undefined) return errors;

  const correlationIds = Array.isArray(body.correlation_ids) ? body.correlation_ids : [];
  const upId = correlationIds.find(
    (id): id is string => typeof id === 'string' && id.startsWith('as:up:') && givenId(id) !== undefined,
  );
  return {
    source: 'tts',
    devEui,
    deviceName: textOrNull((ids as Json).device_id),
    ingestKey: `tts:${kind}:${upId ?? `sha256:${bodyHash(body)}`}`,
    readings,
    payload: uplink ? (uplink.decoded_payload ?? null) : null,
  };
}

function isFieldErrors(value: UplinkMessage['readings'] | FieldError[]): value is FieldError[] {
  return value.some((item) => 'field' in item);
}

/**
 * A name as stored: trimmed, at most 255 characters, without NUL (PostgreSQL cannot store it) or
 * unpaired surrogates (MQTT payloads are not checked as HTTP bodies are).
 */
function textOrNull(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value
    .replace(/\0/g, '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .trim();
  return text === '' ? null : text.slice(0, 255);
}
