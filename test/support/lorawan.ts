// The LoRaWAN fixtures (test/fixtures/lorawan/): full events as ChirpStack and The Things Stack send
// them, read fresh for each use so a test can change its copy.
import { readFileSync } from 'node:fs';

export type LorawanFixture =
  | 'chirpstack-v4-up'
  | 'chirpstack-v4-status'
  | 'chirpstack-v4-join'
  | 'chirpstack-v3-up'
  | 'tts-v3-uplink'
  | 'tts-v3-join-accept';

export function lorawanFixture(name: LorawanFixture): any {
  return JSON.parse(readFileSync(new URL(`../fixtures/lorawan/${name}.json`, import.meta.url), 'utf8'));
}

/** A ChirpStack v4 event of the fixture for another device and deduplication id. */
export function chirpstackEvent(
  name: 'chirpstack-v4-up' | 'chirpstack-v4-status' | 'chirpstack-v4-join',
  devEui: string,
  changes: Record<string, unknown> = {},
): any {
  const event = lorawanFixture(name);
  event.deviceInfo.devEui = devEui;
  event.deduplicationId = crypto.randomUUID();
  return { ...event, ...changes };
}
