// LoRaWAN ingestion through the API on both databases, with an API key as a network server uses:
// readings and times stored, duplicates stored once (also when posted at the same moment), unknown
// devices listed, adopted and then stored, v3 events, Protobuf refused, tenants apart, bad bodies,
// alerts raised from uplinks, and DevEUIs on devices.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { client } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { type Api, iotFixture } from '../../../test/support/iot.js';
import { chirpstackEvent, lorawanFixture } from '../../../test/support/lorawan.js';
import { assertErrorShape, invalidFields } from '../../../test/support/resources.js';
import { pruneOldIngestKeys } from './ingest-key-pruning.js';

const CHIRPSTACK = '/api/iot/ingest/chirpstack';
const TTS = '/api/iot/ingest/tts';
const UNCLAIMED = '/api/iot/unclaimed-devices';

/** A DevEUI of its own for each test, so tests never share a device. */
let euiCounter = 0;
const nextEui = () => `a84041000000${(++euiCounter).toString(16).padStart(4, '0')}`;

forEachDialect('LoRaWAN ingestion', (database) => {
  const f = iotFixture(database);
  /** The farm's network server: a staff API key. */
  let ns: Api;
  /** Another tenant's network server. */
  let otherNs: Api;

  const makeKey = async (api: Api) => {
    const res = await api.post('/api/auth/api-keys', { json: { name: 'ChirpStack', role: 'staff' } });
    assert.equal(res.status, 201, res.text);
    return client(f.t.url, res.body.data.key as string);
  };
  const up = (api: Api, event: unknown, type = 'up') =>
    api.post(`${CHIRPSTACK}?event=${type}`, { json: event });
  const readingsOf = async (deviceId: number) => {
    const res = await f.api.get(`/api/iot/devices/${deviceId}/readings?pageLimit=100`);
    assert.equal(res.status, 200, res.text);
    return res.body as { metric: string; value: number; recorded_at: string }[];
  };

  before(async () => {
    ns = await makeKey(f.api);
    otherNs = await makeKey(f.otherApi);
  });

  describe('ChirpStack v4', () => {
    it('stores every numeric value of an up event as a reading at its time, and counts it a heartbeat', async () => {
      const eui = nextEui();
      const device = await f.device('cs-up', { dev_eui: eui.toUpperCase() });
      assert.equal(device.dev_eui, eui);
      const res = await up(ns, chirpstackEvent('chirpstack-v4-up', eui));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        data: { event: 'up', device_id: device.id, readings: 5, duplicate: false },
      });
      const stored = await readingsOf(device.id);
      assert.deepEqual(Object.fromEntries(stored.map((r) => [r.metric, r.value])), {
        temperature: 21.5,
        'soil.moisture': 34.2,
        'soil.ec': 1.12,
        battery_v: 3.61,
        leak: 0,
      });
      for (const r of stored) assert.equal(r.recorded_at, '2026-07-01T10:00:00.123Z');
      const after = (await f.api.get(`/api/iot/devices/${device.id}`)).body[0];
      assert.equal(after.status, 'online');
      assert.equal(after.last_heartbeat, new Date(f.t.clock.now()).toISOString());
    });

    it('stores an event posted again once, answering duplicate: true', async () => {
      const eui = nextEui();
      const device = await f.device('cs-dup', { dev_eui: eui });
      const event = chirpstackEvent('chirpstack-v4-up', eui);
      assert.equal((await up(ns, event)).body.data.duplicate, false);
      const again = await up(ns, event);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, {
        data: { event: 'up', device_id: device.id, readings: 0, duplicate: true },
      });
      assert.equal((await readingsOf(device.id)).length, 5);
      // The same deduplicationId of another event type is another event (a status of the same frame).
      const status = chirpstackEvent('chirpstack-v4-status', eui, { deduplicationId: event.deduplicationId });
      assert.equal((await up(ns, status, 'status')).body.data.duplicate, false);
    });

    it('stores one of two posts of the same event at the same moment', async () => {
      const eui = nextEui();
      const device = await f.device('cs-race', { dev_eui: eui });
      for (let round = 0; round < 3; round++) {
        const event = chirpstackEvent('chirpstack-v4-up', eui);
        const answers = await Promise.all([up(ns, event), up(ns, event), up(ns, event)]);
        for (const a of answers) assert.equal(a.status, 200, a.text);
        assert.deepEqual(answers.map((a) => a.body.data.duplicate).sort(), [false, true, true]);
      }
      assert.equal((await readingsOf(device.id)).length, 15);
    });

    it('stores the battery level of a status event; a join is a heartbeat with no readings', async () => {
      const eui = nextEui();
      const device = await f.device('cs-status', { dev_eui: eui });
      const join = await up(ns, chirpstackEvent('chirpstack-v4-join', eui), 'join');
      assert.deepEqual(join.body, {
        data: { event: 'join', device_id: device.id, readings: 0, duplicate: false },
      });
      assert.equal((await f.api.get(`/api/iot/devices/${device.id}`)).body[0].status, 'online');
      const status = await up(ns, chirpstackEvent('chirpstack-v4-status', eui), 'status');
      assert.equal(status.body.data.readings, 1);
      const unavailable = chirpstackEvent('chirpstack-v4-status', eui, { batteryLevelUnavailable: true });
      assert.equal((await up(ns, unavailable, 'status')).body.data.readings, 0);
      assert.deepEqual(
        (await readingsOf(device.id)).map((r) => [r.metric, r.value, r.recorded_at]),
        [['battery_level', 87.4, '2026-07-01T10:30:00.500Z']],
      );
    });

    it('raises an alert when an uplink crosses a rule, through the readings ingestion', async () => {
      const eui = nextEui();
      const device = await f.device('cs-alert', { dev_eui: eui });
      const rule = await f.api.post('/api/iot/rules', {
        json: {
          metric: 'soil.moisture',
          operator: 'lt',
          threshold: 20,
          severity: 'critical',
          device_id: device.id,
        },
      });
      assert.equal(rule.status, 201, rule.text);
      const dry = lorawanFixture('chirpstack-v4-up').object;
      dry.soil.moisture = 12.5;
      assert.equal((await up(ns, chirpstackEvent('chirpstack-v4-up', eui, { object: dry }))).status, 200);
      const alerts = (await f.api.get(`/api/iot/alerts?device_id=${device.id}`)).body;
      assert.equal(alerts.length, 1);
      assert.equal(alerts[0].metric, 'soil.moisture');
      assert.equal(alerts[0].value, 12.5);
    });
  });

  describe('devices not yet adopted', () => {
    it('answers 202 for an unknown DevEUI, lists it, and after adoption stores its next uplink', async () => {
      const eui = nextEui();
      const first = await up(ns, chirpstackEvent('chirpstack-v4-up', eui));
      assert.equal(first.status, 202, first.text);
      assert.deepEqual(first.body, { data: { event: 'up', unclaimed: true, dev_eui: eui } });
      f.t.clock.advance(60_000);
      await up(ns, chirpstackEvent('chirpstack-v4-join', eui), 'join');

      const list = await f.api.get(UNCLAIMED);
      assert.equal(list.status, 200, list.text);
      const listed = list.body.find((d: { dev_eui: string }) => d.dev_eui === eui);
      assert.deepEqual(
        { ...listed, last_payload: JSON.parse(listed.last_payload) },
        {
          dev_eui: eui,
          source: 'chirpstack',
          name: 'greenhouse-a-soil-1',
          first_seen_at: new Date(f.t.clock.now() - 60_000).toISOString(),
          last_seen_at: new Date(f.t.clock.now()).toISOString(),
          seen_count: 2,
          last_payload: lorawanFixture('chirpstack-v4-up').object,
        },
      );
      assert.equal(list.body[0].dev_eui, eui, 'newest first');
      assert.ok(list.headers.get('x-total-count'));

      // Staff adopt too (the device rule); the name is the network server's.
      const adopted = await ns.post(`${UNCLAIMED}/${eui.toUpperCase()}/adopt`, {
        json: { zone_id: f.places.zoneA.id },
      });
      assert.equal(adopted.status, 201, adopted.text);
      const device = adopted.body[0];
      assert.equal(device.code, eui);
      assert.equal(device.name, 'greenhouse-a-soil-1');
      assert.equal(device.dev_eui, eui);
      assert.equal(device.zone_id, f.places.zoneA.id);
      assert.equal(adopted.headers.get('location'), `/api/iot/devices/${device.id}`);
      assert.ok(!(await f.api.get(UNCLAIMED)).body.some((d: { dev_eui: string }) => d.dev_eui === eui));

      const next = await up(ns, chirpstackEvent('chirpstack-v4-up', eui));
      assert.equal(next.status, 200, next.text);
      assert.equal(next.body.data.device_id, device.id);
      assert.equal((await readingsOf(device.id)).length, 5);
    });

    it('adopts with no body, a code and a name of its own; a second adoption is a 404', async () => {
      const eui = nextEui();
      await ns.post(TTS, { json: ttsUplink(eui) });
      const bare = await f.api.post(`${UNCLAIMED}/${eui}/adopt`);
      assert.equal(bare.status, 201, bare.text);
      assert.equal(bare.body[0].name, 'orchard-soil-3');
      assert.equal(bare.body[0].heartbeat_timeout_seconds, 300);
      assertErrorShape((await f.api.post(`${UNCLAIMED}/${eui}/adopt`)).body, 404, 'not_found');

      const named = nextEui();
      await ns.post(TTS, { json: ttsUplink(named) });
      const res = await f.api.post(`${UNCLAIMED}/${named}/adopt`, {
        json: { code: 'orchard-3', name: 'Orchard probe 3', heartbeat_timeout_seconds: 900 },
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(
        [res.body[0].code, res.body[0].name, res.body[0].heartbeat_timeout_seconds],
        ['orchard-3', 'Orchard probe 3', 900],
      );
      // A taken code is a 422 and the device stays listed.
      const taken = nextEui();
      await ns.post(TTS, { json: ttsUplink(taken) });
      const refused = await f.api.post(`${UNCLAIMED}/${taken}/adopt`, { json: { code: 'orchard-3' } });
      assert.deepEqual(invalidFields(refused.body), ['code']);
      assert.ok((await f.api.get(UNCLAIMED)).body.some((d: { dev_eui: string }) => d.dev_eui === taken));
    });

    it('dismisses a device: it leaves the list and comes back when heard from again', async () => {
      const eui = nextEui();
      await up(ns, chirpstackEvent('chirpstack-v4-up', eui));
      const gone = await f.api.delete(`${UNCLAIMED}/${eui}`);
      assert.equal(gone.status, 200, gone.text);
      assertErrorShape((await f.api.delete(`${UNCLAIMED}/${eui}`)).body, 404, 'not_found');
      assertErrorShape((await f.api.delete(`${UNCLAIMED}/not-a-dev-eui`)).body, 404, 'not_found');
      assert.ok(!(await f.api.get(UNCLAIMED)).body.some((d: { dev_eui: string }) => d.dev_eui === eui));
      await up(ns, chirpstackEvent('chirpstack-v4-up', eui));
      const back = (await f.api.get(UNCLAIMED)).body.find((d: { dev_eui: string }) => d.dev_eui === eui);
      assert.equal(back.seen_count, 1);
    });

    it('keeps at most 4 KB of the last payload', async () => {
      const eui = nextEui();
      const object = { note: 'é'.repeat(5000), value: 1 };
      await up(ns, chirpstackEvent('chirpstack-v4-up', eui, { object }));
      const listed = (await f.api.get(UNCLAIMED)).body.find((d: { dev_eui: string }) => d.dev_eui === eui);
      assert.ok(Buffer.byteLength(listed.last_payload) <= 4096);
      assert.ok(Buffer.byteLength(listed.last_payload) > 4000);
      assert.ok(!listed.last_payload.includes('\uFFFD'));
    });

    it('a device created with a listed DevEUI takes it off the list', async () => {
      const eui = nextEui();
      await up(ns, chirpstackEvent('chirpstack-v4-up', eui));
      await f.device('cs-claimed', { dev_eui: eui });
      assert.ok(!(await f.api.get(UNCLAIMED)).body.some((d: { dev_eui: string }) => d.dev_eui === eui));
    });
  });

  describe('ChirpStack v3 and The Things Stack', () => {
    it('converts a ChirpStack v3 up event: base64 devEUI, objectJSON, publishedAt', async () => {
      const device = await f.device('cs-v3', { dev_eui: '0004A30B00F1C2DE' });
      const res = await up(ns, lorawanFixture('chirpstack-v3-up'));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.device_id, device.id);
      assert.deepEqual((await readingsOf(device.id)).map((r) => [r.metric, r.value, r.recorded_at]).sort(), [
        ['airhumidity', 71, '2026-07-01T10:05:00.512Z'],
        ['airtemperature', 26.4, '2026-07-01T10:05:00.512Z'],
      ]);
      assert.equal((await up(ns, lorawanFixture('chirpstack-v3-up'))).body.data.duplicate, true);
    });

    it('stores a TTS uplink once by its as:up correlation id; other kinds are heartbeats', async () => {
      const eui = nextEui();
      const device = await f.device('tts-1', { dev_eui: eui });
      const uplink = ttsUplink(eui);
      const res = await ns.post(TTS, { json: uplink });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        data: { event: 'uplink_message', device_id: device.id, readings: 5, duplicate: false },
      });
      const stored = await readingsOf(device.id);
      assert.deepEqual(stored.map((r) => r.metric).sort(), [
        'battery',
        'depths.0',
        'depths.1',
        'soil_moisture',
        'soil_temperature',
      ]);
      for (const r of stored) assert.equal(r.recorded_at, '2026-07-01T10:10:00.785Z');
      // The same uplink through another gateway path: other correlation ids, the same as:up one.
      const again = structuredClone(uplink);
      again.correlation_ids = [uplink.correlation_ids[0], 'gs:uplink:01J2Z6Q5X8M4T9R3B7C1D5E6ZZ'];
      assert.equal((await ns.post(TTS, { json: again })).body.data.duplicate, true);

      const join = lorawanFixture('tts-v3-join-accept');
      join.end_device_ids.dev_eui = eui;
      const joined = await ns.post(TTS, { json: join });
      assert.deepEqual(joined.body, {
        data: { event: 'join_accept', device_id: device.id, readings: 0, duplicate: false },
      });
    });

    it('takes TTS messages on the per-kind paths the console offers under the base URL', async () => {
      const eui = nextEui();
      const device = await f.device('tts-2', { dev_eui: eui });
      const res = await ns.post(`${TTS}/uplink`, { json: ttsUplink(eui) });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.device_id, device.id);
      assert.equal(res.body.data.readings, 5);
      assert.equal((await readingsOf(device.id)).length, 5);
    });
  });

  describe('refusals', () => {
    it('refuses a Protobuf body with 415, telling to choose JSON', async () => {
      for (const type of ['application/octet-stream', 'application/x-protobuf']) {
        const res = await ns.post(`${CHIRPSTACK}?event=up`, {
          raw: Buffer.from([0x0a, 0x24, 0x33, 0x61]),
          headers: { 'content-type': type },
        });
        const meta = assertErrorShape(res.body, 415, 'unsupported_media_type');
        assert.match(meta.message, /JSON/);
        assert.match(meta.message, /marshaler/);
      }
      // Only the network servers' routes say so; elsewhere it is the usual 415.
      const elsewhere = await ns.post(`${UNCLAIMED}/${nextEui()}/adopt`, {
        raw: Buffer.from([1]),
        headers: { 'content-type': 'application/octet-stream' },
      });
      assert.doesNotMatch(
        assertErrorShape(elsewhere.body, 415, 'unsupported_media_type').message,
        /marshaler/,
      );
    });

    it('refuses an unknown or missing event with 400 listing the known ones', async () => {
      const eui = nextEui();
      for (const path of [`${CHIRPSTACK}?event=uplink`, CHIRPSTACK]) {
        const res = await ns.post(path, { json: chirpstackEvent('chirpstack-v4-up', eui) });
        const meta = assertErrorShape(res.body, 400, 'bad_request');
        assert.match(meta.message, /up, status, join, ack, txack, log, location, integration/);
      }
    });

    it('names the bad fields of bad bodies with 422, and stores nothing', async () => {
      const eui = nextEui();
      const device = await f.device('cs-bad', { dev_eui: eui });
      const event = chirpstackEvent('chirpstack-v4-up', eui);
      assert.deepEqual(invalidFields((await up(ns, { ...event, deviceInfo: undefined })).body), [
        'deviceInfo',
      ]);
      assert.deepEqual(invalidFields((await up(ns, { ...event, time: 'soon' })).body), ['time']);
      assert.deepEqual(
        invalidFields((await up(ns, { ...event, deviceInfo: { ...event.deviceInfo, devEui: '12' } })).body),
        ['deviceInfo.devEui'],
      );
      assert.deepEqual(invalidFields((await up(ns, [event])).body), ['body']);
      // A time more than an hour ahead is refused whole, and does not use up the event's key.
      const future = { ...event, time: new Date(f.t.clock.now() + 2 * 3_600_000).toISOString() };
      assert.deepEqual(invalidFields((await up(ns, future)).body), ['time']);
      assert.equal((await up(ns, event)).body.data.duplicate, false);
      assert.deepEqual(invalidFields((await ns.post(TTS, { json: { uplink_message: {} } })).body), [
        'end_device_ids',
      ]);
      assert.equal((await readingsOf(device.id)).length, 5);
    });

    it('needs a token', async () => {
      const res = await client(f.t.url).post(`${CHIRPSTACK}?event=up`, {
        json: chirpstackEvent('chirpstack-v4-up', nextEui()),
      });
      assertErrorShape(res.body, 401, 'token_invalid');
    });

    it('keeps tenants apart: another tenant never sees, stores into or claims the farm’s devices', async () => {
      const eui = nextEui();
      const device = await f.device('cs-mine', { dev_eui: eui });
      // Their network server sends the same DevEUI: it is unknown to them, never ours.
      const theirs = await up(otherNs, chirpstackEvent('chirpstack-v4-up', eui));
      assert.equal(theirs.status, 202, theirs.text);
      assert.equal((await readingsOf(device.id)).length, 0);
      // Our unclaimed device is not theirs to list, adopt or dismiss.
      const stray = nextEui();
      await up(ns, chirpstackEvent('chirpstack-v4-up', stray));
      assert.ok(
        !(await f.otherApi.get(UNCLAIMED)).body.some((d: { dev_eui: string }) => d.dev_eui === stray),
      );
      assertErrorShape((await otherNs.post(`${UNCLAIMED}/${stray}/adopt`)).body, 404, 'not_found');
      assertErrorShape((await f.otherApi.delete(`${UNCLAIMED}/${stray}`)).body, 404, 'not_found');
      assert.ok((await f.api.get(UNCLAIMED)).body.some((d: { dev_eui: string }) => d.dev_eui === stray));
      // Their adopting their own sighting makes their device; ours still gets our events.
      assert.equal((await otherNs.post(`${UNCLAIMED}/${eui}/adopt`)).status, 201);
      assert.equal((await up(ns, chirpstackEvent('chirpstack-v4-up', eui))).body.data.device_id, device.id);
      assert.equal((await readingsOf(device.id)).length, 5);
    });
  });

  describe('DevEUIs of devices', () => {
    it('checks the format, answers lower case, refuses a taken one with 409, and clears with null', async () => {
      const bad = await f.api.post('/api/iot/devices', { json: { code: 'eui-bad', dev_eui: '70B3-D57E' } });
      assert.deepEqual(invalidFields(bad.body), ['dev_eui']);
      const eui = nextEui();
      const a = await f.device('eui-a', { dev_eui: eui.toUpperCase() });
      const taken = await f.api.post('/api/iot/devices', { json: { code: 'eui-b', dev_eui: eui } });
      const meta = assertErrorShape(taken.body, 409, 'dev_eui_taken');
      assert.match(meta.message, new RegExp(eui));
      const b = await f.device('eui-b');
      assert.equal(b.dev_eui, null);
      assertErrorShape(
        (await f.api.put(`/api/iot/devices/${b.id}`, { json: { dev_eui: eui } })).body,
        409,
        'dev_eui_taken',
      );
      // Changing a device to its own DevEUI is no conflict; null frees it for another.
      assert.equal((await f.api.put(`/api/iot/devices/${a.id}`, { json: { dev_eui: eui } })).status, 200);
      assert.equal((await f.api.put(`/api/iot/devices/${a.id}`, { json: { dev_eui: null } })).status, 200);
      const moved = await f.api.put(`/api/iot/devices/${b.id}`, {
        json: { dev_eui: eui },
        headers: { prefer: 'return=representation' },
      });
      assert.equal(moved.body[0].dev_eui, eui);
      // A deleted device's DevEUI is free again; another tenant may have the same one.
      assert.equal((await f.api.delete(`/api/iot/devices/${b.id}`)).status, 200);
      assert.equal((await f.device('eui-c', { dev_eui: eui })).dev_eui, eui);
      const theirs = await f.otherApi.post('/api/iot/devices', { json: { code: 'eui-a', dev_eui: eui } });
      assert.equal(theirs.status, 201, theirs.text);
    });
  });

  describe('ingest keys', () => {
    it('are pruned after 7 days', async () => {
      const db = f.t.database.db;
      const now = f.t.clock.now();
      const day = 86_400_000;
      await db
        .insertInto('iot_ingest_keys')
        .values([
          { tenant_id: f.farm.id, ingest_key: 'test:old', created_at: now - 8 * day },
          { tenant_id: f.farm.id, ingest_key: 'test:recent', created_at: now - 6 * day },
        ])
        .execute();
      const pruned = await pruneOldIngestKeys({ db, clock: f.t.clock });
      assert.ok(pruned >= 1);
      const left = await db
        .selectFrom('iot_ingest_keys')
        .select('ingest_key')
        .where('ingest_key', 'like', 'test:%')
        .execute();
      assert.deepEqual(left, [{ ingest_key: 'test:recent' }]);
    });
  });
});

function ttsUplink(eui: string): any {
  const message = lorawanFixture('tts-v3-uplink');
  message.end_device_ids.dev_eui = eui.toUpperCase();
  message.correlation_ids[0] = `as:up:${crypto.randomUUID()}`;
  return message;
}
