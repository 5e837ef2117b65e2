// What an MQTT message becomes, by the source's format. A message that cannot be stored (not JSON,
// an unknown device, bad values) is answered with a short problem, never thrown: the subscriber
// acknowledges it and goes on. A database failure is thrown, so the message is not acknowledged.
import type { Scope } from '../../platform/db/scope.js';
import { AppError, type FieldError } from '../../platform/errors.js';
import { translate } from '../../platform/i18n.js';
import type { OutboxDeps } from '../webhooks/outbox.js';
import { isChirpstackEvent, parseChirpstackEvent, parseTtsMessage, type UplinkMessage } from './lorawan.js';
import { ingestUplink } from './lorawan.service.js';
import { ingestReadings } from './reading.service.js';

export type MqttFormat = 'chirpstack' | 'tts' | 'furrow';

/** How a message went: the readings stored, and what was wrong with it, if anything. */
export interface MessageOutcome {
  stored: number;
  problem: string | null;
}

/** The largest payload read; brokers allow up to 256 MB, sensors send a few hundred bytes. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/** A message's readings for ingestReadings, or the problem that keeps it from having any. */
type Readings = { deviceCode: string; readings: unknown[] } | { problem: string };

export async function storeMqttMessage(
  deps: OutboxDeps,
  scope: Scope,
  format: MqttFormat,
  topic: string,
  payload: Buffer,
): Promise<MessageOutcome> {
  if (payload.length > MAX_PAYLOAD_BYTES)
    return { stored: 0, problem: `payload larger than ${MAX_PAYLOAD_BYTES} bytes` };
  let body: unknown;
  try {
    body = JSON.parse(payload.toString('utf8'));
  } catch {
    return {
      stored: 0,
      problem:
        format === 'chirpstack'
          ? "payload is not JSON (set the ChirpStack MQTT integration's marshaler to JSON)"
          : 'payload is not JSON',
    };
  }
  const now = deps.clock.now();
  switch (format) {
    case 'furrow':
      return storeReadings(deps, scope, furrowReadings(topic, body));
    case 'chirpstack': {
      const event = chirpstackEventOf(topic);
      if (event === undefined)
        return { stored: 0, problem: 'the topic is not application/{app}/device/{devEui}/event/{event}' };
      if (!isChirpstackEvent(event))
        return { stored: 0, problem: `unknown ChirpStack event "${short(event)}"` };
      return storeUplink(deps, scope, parseChirpstackEvent(event, body, now));
    }
    case 'tts':
      return storeUplink(deps, scope, parseTtsMessage(body, now));
  }
}

/** The event of a ChirpStack integration topic: application/{app}/device/{devEui}/event/{event}. */
export function chirpstackEventOf(topic: string): string | undefined {
  const levels = topic.split('/');
  return levels.length >= 2 && levels.at(-2) === 'event' ? levels.at(-1) : undefined;
}

const short = (text: string) => (text.length > 40 ? `${text.slice(0, 37)}...` : text);

/** A LoRaWAN network server's event, stored as its HTTP integration's would be. */
async function storeUplink(
  deps: OutboxDeps,
  scope: Scope,
  message: UplinkMessage | FieldError[],
): Promise<MessageOutcome> {
  if (Array.isArray(message))
    return { stored: 0, problem: message.length > 0 ? describe(message[0]!) : 'not a network-server event' };
  try {
    const outcome = await ingestUplink(deps, scope, message);
    if (outcome.status === 'unclaimed')
      return {
        stored: 0,
        problem: `no device has the DevEUI ${message.devEui}; it is listed under the unclaimed devices`,
      };
    return { stored: outcome.readings, problem: null };
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const first = err.fieldErrors[0];
    return { stored: 0, problem: first ? describe(first) : translate(err.messageKey, 'en', err.params) };
  }
}

/**
 * The furrow format: the topic's last level is the device code; the payload is
 * `{"metric": number, ...}` (with an optional `recorded_at` time) or
 * `{"readings": [{metric, value, recorded_at?}, ...]}`.
 */
export function furrowReadings(topic: string, body: unknown): Readings {
  const deviceCode = topic.slice(topic.lastIndexOf('/') + 1);
  if (deviceCode === '') return { problem: 'the topic does not end with a device code' };
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { problem: 'payload is not a JSON object' };
  const object = body as Record<string, unknown>;
  if (Object.hasOwn(object, 'readings')) {
    if (!Array.isArray(object.readings)) return { problem: 'readings is not an array' };
    if (object.readings.length > 1000) return { problem: 'more than 1000 readings in one message' };
    return {
      deviceCode,
      readings: object.readings.map((r) =>
        r !== null && typeof r === 'object' && !Array.isArray(r) ? { ...r, device_code: deviceCode } : r,
      ),
    };
  }
  const recordedAt = object.recorded_at;
  const readings = Object.entries(object)
    .filter(([metric]) => metric !== 'recorded_at')
    .map(([metric, value]) => ({ device_code: deviceCode, metric, value, recorded_at: recordedAt }));
  if (readings.length > 1000) return { problem: 'more than 1000 readings in one message' };
  return { deviceCode, readings };
}

async function storeReadings(deps: OutboxDeps, scope: Scope, parsed: Readings): Promise<MessageOutcome> {
  if ('problem' in parsed) return { stored: 0, problem: parsed.problem };
  if (parsed.readings.length === 0) return { stored: 0, problem: 'no readings in the message' };
  const results = await ingestReadings(deps, scope, parsed.readings);
  const stored = results.filter((r) => r.status === 'accepted').length;
  const errors = results.flatMap((r) => (r.status === 'rejected' ? r.errors : []));
  if (errors.length === 0) return { stored, problem: null };
  const first = errors[0]!;
  if (first.field.endsWith('.device_code') && first.message === 'field.not_found' && stored === 0)
    return { stored, problem: `no device has the code "${parsed.deviceCode}"` };
  const refused = results.length - stored;
  return { stored, problem: `${refused} of ${results.length} readings refused: ${describe(first)}` };
}

/** A field error in a line, in English (status text for the owner, not an API answer). */
function describe(error: FieldError): string {
  return `${error.field} ${translate(error.message, 'en', error.params ?? {})}`;
}
