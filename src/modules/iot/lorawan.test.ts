// Reading network-server events (pure, no database): ChirpStack v4 and v3, The Things Stack v3,
// metric names from payload paths, DevEUIs, duplicate keys and the errors of bad bodies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lorawanFixture } from '../../../test/support/lorawan.js';
import type { FieldError } from '../../platform/errors.js';
import {
  MAX_UPLINK_READINGS,
  metricOfPath,
  normalizeDevEui,
  numericLeaves,
  parseChirpstackEvent,
  parseTtsMessage,
  ttsMessageKind,
  type UplinkMessage,
} from './lorawan.js';

const NOW = Date.parse('2026-07-01T12:00:00Z');

function parsed(result: UplinkMessage | FieldError[]): UplinkMessage {
  assert.ok(!Array.isArray(result), JSON.stringify(result));
  return result;
}
function errors(result: UplinkMessage | FieldError[]): FieldError[] {
  assert.ok(Array.isArray(result), 'expected errors');
  return result;
}
const metrics = (m: UplinkMessage) => Object.fromEntries(m.readings.map((r) => [r.metric, r.value]));

describe('metric names from payload paths', () => {
  it('joins keys with ".", lower-cases, replaces other characters with "_" and cuts to 64', () => {
    assert.equal(metricOfPath(['Air', 'Temp °C']), 'air.temp__c');
    assert.equal(metricOfPath(['soil', 'moisture']), 'soil.moisture');
    assert.equal(metricOfPath(['depths', 0]), 'depths.0');
    assert.equal(metricOfPath(['x'.repeat(80)]).length, 64);
  });

  it('reads numbers and booleans (1/0) at any depth, skips strings and nulls, keeps the first of a name', () => {
    assert.deepEqual(
      numericLeaves({ a: 1, b: { c: [2, { d: true }] }, e: 'text', f: null, g: false, A: 9 }),
      [
        { metric: 'a', value: 1 },
        { metric: 'b.c.0', value: 2 },
        { metric: 'b.c.1.d', value: 1 },
        { metric: 'g', value: 0 },
      ],
    );
  });
});

describe('DevEUIs', () => {
  it('takes 16 hex digits in any case, and base64 of 8 bytes only where allowed', () => {
    assert.equal(normalizeDevEui('70B3D57ED0051A2F'), '70b3d57ed0051a2f');
    assert.equal(normalizeDevEui('AASjCwDxwt4='), undefined);
    assert.equal(normalizeDevEui('AASjCwDxwt4=', true), '0004a30b00f1c2de');
    assert.equal(normalizeDevEui('70b3d57ed0051a2'), undefined);
    assert.equal(normalizeDevEui('70b3d57ed0051a2g'), undefined);
    assert.equal(normalizeDevEui(1234), undefined);
  });
});

describe('ChirpStack v4', () => {
  it('reads an up event: device, name, every numeric leaf of object at time, the deduplication key', () => {
    const m = parsed(parseChirpstackEvent('up', lorawanFixture('chirpstack-v4-up'), NOW));
    assert.equal(m.source, 'chirpstack');
    assert.equal(m.devEui, '0004a30b00f1c2d3');
    assert.equal(m.deviceName, 'greenhouse-a-soil-1');
    assert.equal(m.ingestKey, 'chirpstack:up:3ac8f2d4-5b1e-4f6a-9c0d-7e2b1a4f8c55');
    assert.deepEqual(metrics(m), {
      temperature: 21.5,
      'soil.moisture': 34.2,
      'soil.ec': 1.12,
      battery_v: 3.61,
      leak: 0,
    });
    for (const r of m.readings) assert.equal(r.recordedAt, Date.parse('2026-07-01T10:00:00.123Z'));
    assert.deepEqual(m.payload, lorawanFixture('chirpstack-v4-up').object);
  });

  it('reads the battery level of a status event, unless it is unavailable', () => {
    const status = lorawanFixture('chirpstack-v4-status');
    const m = parsed(parseChirpstackEvent('status', status, NOW));
    assert.deepEqual(m.readings, [
      { metric: 'battery_level', value: 87.4, recordedAt: Date.parse('2026-07-01T10:30:00.5Z') },
    ]);
    assert.equal(m.ingestKey, `chirpstack:status:${status.deduplicationId}`);
    const unavailable = parsed(
      parseChirpstackEvent('status', { ...status, batteryLevelUnavailable: true, batteryLevel: 0 }, NOW),
    );
    assert.deepEqual(unavailable.readings, []);
  });

  it('reads a join event as the device alone, and an up without object as no readings', () => {
    const m = parsed(parseChirpstackEvent('join', lorawanFixture('chirpstack-v4-join'), NOW));
    assert.deepEqual(m.readings, []);
    assert.equal(m.payload, null);
    const { object: _object, ...bare } = lorawanFixture('chirpstack-v4-up');
    assert.deepEqual(parsed(parseChirpstackEvent('up', bare, NOW)).readings, []);
  });

  it('keys events without a deduplicationId by their body, whatever the key order', () => {
    const log = {
      time: '2026-07-01T10:00:00Z',
      deviceInfo: { devEui: '0004a30b00f1c2d3', deviceName: 'x' },
      level: 'ERROR',
      code: 'UPLINK_CODEC',
      description: 'codec failed',
    };
    const reordered = {
      description: log.description,
      code: log.code,
      level: log.level,
      deviceInfo: { deviceName: 'x', devEui: '0004a30b00f1c2d3' },
      time: log.time,
    };
    const a = parsed(parseChirpstackEvent('log', log, NOW));
    const b = parsed(parseChirpstackEvent('log', reordered, NOW));
    assert.match(a.ingestKey ?? '', /^chirpstack:log:sha256:[0-9a-f]{64}$/);
    assert.equal(a.ingestKey, b.ingestKey);
    const other = parsed(parseChirpstackEvent('log', { ...log, description: 'another' }, NOW));
    assert.notEqual(other.ingestKey, a.ingestKey);
  });

  it('names the bad fields of a bad body', () => {
    const up = lorawanFixture('chirpstack-v4-up');
    const fields = (body: unknown) => errors(parseChirpstackEvent('up', body, NOW)).map((e) => e.field);
    assert.deepEqual(fields([1, 2]), ['body']);
    assert.deepEqual(fields({ ...up, deviceInfo: undefined }), ['deviceInfo']);
    assert.deepEqual(fields({ ...up, deviceInfo: { ...up.deviceInfo, devEui: 'zz' } }), [
      'deviceInfo.devEui',
    ]);
    assert.deepEqual(fields({ ...up, time: 'yesterday' }), ['time']);
    assert.deepEqual(fields({ ...up, object: 'text' }), ['object']);
    const many = Object.fromEntries(Array.from({ length: MAX_UPLINK_READINGS + 1 }, (_, i) => [`v${i}`, i]));
    const tooMany = errors(parseChirpstackEvent('up', { ...up, object: many }, NOW));
    assert.equal(tooMany[0]?.message, 'iot.too_many_values');
  });

  it('takes the time of receipt when an event has no time', () => {
    const { time: _time, ...untimed } = lorawanFixture('chirpstack-v4-up');
    assert.equal(parsed(parseChirpstackEvent('up', untimed, NOW)).readings[0]?.recordedAt, NOW);
  });
});

describe('what is stored from an event', () => {
  it('keeps names free of NUL and unpaired surrogates, and ids that are not printable ASCII out of keys', () => {
    const up = lorawanFixture('chirpstack-v4-up');
    up.deviceInfo.deviceName = ' probe\u0000 \ud800one ';
    up.deduplicationId = 'id with spaces';
    const m = parsed(parseChirpstackEvent('up', up, NOW));
    assert.equal(m.deviceName, 'probe \ufffdone');
    assert.match(m.ingestKey ?? '', /^chirpstack:up:sha256:[0-9a-f]{64}$/);
  });
});

describe('ChirpStack v3', () => {
  it('converts devEUI from base64 and parses objectJSON; the time is publishedAt', () => {
    const m = parsed(parseChirpstackEvent('up', lorawanFixture('chirpstack-v3-up'), NOW));
    assert.equal(m.devEui, '0004a30b00f1c2de');
    assert.equal(m.deviceName, 'greenhouse-b-climate');
    assert.deepEqual(metrics(m), { airtemperature: 26.4, airhumidity: 71 });
    assert.equal(m.readings[0]?.recordedAt, Date.parse('2026-07-01T10:05:00.512Z'));
    assert.match(m.ingestKey ?? '', /^chirpstack:up:sha256:/);
  });

  it('reads the legacy encoding too: devEUI in hex and object as an object', () => {
    const v3 = lorawanFixture('chirpstack-v3-up');
    const legacy = { ...v3, devEUI: '0004A30B00F1C2DE', objectJSON: undefined, object: { t: 1 } };
    const m = parsed(parseChirpstackEvent('up', legacy, NOW));
    assert.equal(m.devEui, '0004a30b00f1c2de');
    assert.deepEqual(metrics(m), { t: 1 });
  });

  it('names objectJSON that is not JSON, and a devEUI that is not 8 bytes', () => {
    const v3 = lorawanFixture('chirpstack-v3-up');
    assert.deepEqual(
      errors(parseChirpstackEvent('up', { ...v3, objectJSON: '{nope' }, NOW)).map((e) => e.field),
      ['objectJSON'],
    );
    assert.deepEqual(
      errors(parseChirpstackEvent('up', { ...v3, devEUI: 'AAAA' }, NOW)).map((e) => e.field),
      ['devEUI'],
    );
  });
});

describe('The Things Stack v3', () => {
  it('reads an uplink: dev_eui, device_id, decoded_payload at uplink_message.received_at, the as:up key', () => {
    const m = parsed(parseTtsMessage(lorawanFixture('tts-v3-uplink'), NOW));
    assert.equal(m.source, 'tts');
    assert.equal(m.devEui, '70b3d57ed0051a2f');
    assert.equal(m.deviceName, 'orchard-soil-3');
    assert.equal(m.ingestKey, 'tts:uplink_message:as:up:01J2Z6Q5Y1K8N3P6Q9R2S5T8V1');
    assert.deepEqual(metrics(m), {
      soil_temperature: 18.25,
      soil_moisture: 41.5,
      battery: 3.58,
      'depths.0': 12,
      'depths.1': 13,
    });
    assert.equal(m.readings[0]?.recordedAt, Date.parse('2026-07-01T10:10:00.785Z'));
  });

  it('falls back to the top-level received_at', () => {
    const uplink = lorawanFixture('tts-v3-uplink');
    delete uplink.uplink_message.received_at;
    assert.equal(
      parsed(parseTtsMessage(uplink, NOW)).readings[0]?.recordedAt,
      Date.parse('2026-07-01T10:10:00.987Z'),
    );
  });

  it('reads other kinds as the device alone', () => {
    const join = lorawanFixture('tts-v3-join-accept');
    assert.equal(ttsMessageKind(join), 'join_accept');
    const m = parsed(parseTtsMessage(join, NOW));
    assert.deepEqual(m.readings, []);
    assert.equal(m.ingestKey, 'tts:join_accept:as:up:01J2Z4M1C5D8E1F4G7H0J3K6M9');
  });

  it('names a missing or bad dev_eui', () => {
    const uplink = lorawanFixture('tts-v3-uplink');
    assert.deepEqual(
      errors(parseTtsMessage({ ...uplink, end_device_ids: undefined }, NOW)).map((e) => e.field),
      ['end_device_ids'],
    );
    uplink.end_device_ids.dev_eui = '70B3';
    assert.deepEqual(
      errors(parseTtsMessage(uplink, NOW)).map((e) => e.field),
      ['end_device_ids.dev_eui'],
    );
  });
});
