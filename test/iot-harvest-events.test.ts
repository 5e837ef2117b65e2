// The three farm events end to end: raised by the service itself, delivered by the real worker to a
// real HTTPS receiver, and verified there with the standardwebhooks package as a receiver would.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { sweepOfflineDevices } from '../src/modules/iot/offline-sweeper.js';
import { createDeliveryWorker, type DeliveryWorker } from '../src/modules/webhooks/worker.js';
import { openDatabase } from '../src/platform/db/database.js';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant } from './support/factories.js';
import { type ReceivedRequest, type Receiver, startReceiver } from './support/webhook-receiver.js';

forEachDialect('farm events reach a real receiver', (database) => {
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let api: ReturnType<typeof client>;
  let verifier: Webhook;
  let tenantCode: string;
  let places: { zoneId: number; parcelIds: number[]; cropTypeId: number };

  before(async () => {
    receiver = await startReceiver();
    t = await startTestApp(database.url, {
      env: {
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        WEBHOOK_CA_FILE: receiver.caFile,
        WEBHOOK_RETRY_SCHEDULE: '1s',
      },
    });
    worker = createDeliveryWorker({
      database: t.database,
      clock: t.clock,
      config: t.config,
      secretKey: t.config.secretKey!,
    });
    const farm = await makeTenant(t.database.db);
    tenantCode = farm.code;
    api = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    const endpoint = await api.post('/api/webhooks', {
      json: { url: `${receiver.origin}/farm-events`, events: ['*'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    verifier = new Webhook(endpoint.body.secret ?? endpoint.body.data?.secret ?? endpoint.body[0]?.secret);

    const farmRow = (await api.post('/api/farms', { json: { name: 'Hill farm' } })).body[0];
    const zone = (await api.post('/api/zones', { json: { name: 'Nursery', farm_id: farmRow.id } })).body[0];
    const parcel = async (code: string) =>
      (await api.post('/api/parcels', { json: { name: code, code, farm_id: farmRow.id, zone_id: zone.id } }))
        .body[0].id;
    places = {
      zoneId: zone.id,
      parcelIds: [await parcel('N1'), await parcel('N2')],
      cropTypeId: (await api.post('/api/croptype/croptype', { json: { name: 'Coffee' } })).body[0].id,
    };
  });
  after(async () => {
    await worker.stop();
    await t.close();
    await receiver.close();
  });

  /**
   * The receiver's five-minute timestamp check, on the test's clock: Furrow signs with its
   * injected clock, which these tests move far ahead of the machine's.
   */
  function verifyAsOf(now: number, request: ReceivedRequest): void {
    const realNow = Date.now;
    Date.now = () => now;
    try {
      verifier.verify(request.body, request.headers);
    } finally {
      Date.now = realNow;
    }
  }

  /** Delivers what is due and answers the newly received messages, verified and parsed. */
  async function deliver(): Promise<{ type: string; body: any; request: ReceivedRequest }[]> {
    const seen = receiver.requests.length;
    await worker.drain();
    return receiver.requests.slice(seen).map((request) => {
      verifyAsOf(t.clock.now(), request); // throws on a bad signature or a stale timestamp
      const body = JSON.parse(request.body);
      assert.equal(request.headers['x-service-event'], body.type);
      assert.equal(request.headers['x-service-delivery'], body.id);
      assert.equal(body.workspace_id, tenantCode);
      return { type: body.type, body, request };
    });
  }

  it('iot.alert.raised: once per crossing, with the data fields of the specification', async () => {
    const device = (
      await api.post('/api/iot/devices', {
        json: {
          code: 'nursery-1',
          name: 'Nursery probe',
          zone_id: places.zoneId,
          parcel_ids: places.parcelIds,
        },
      })
    ).body[0];
    await api.post('/api/iot/rules', {
      json: {
        metric: 'humidity',
        operator: 'lt',
        threshold: 40,
        severity: 'warning',
        zone_id: places.zoneId,
        message: 'dry: {value}%',
      },
    });
    await api.post('/api/iot/readings', {
      json: {
        readings: [55, 38, 35, 45, 30].map((value, i) => ({
          device_code: 'nursery-1',
          metric: 'humidity',
          value,
          recorded_at: `2026-07-01 10:0${i}:00`,
        })),
      },
    });
    // 45 is back on the normal side: the first alert resolves in between (the endpoint takes `*`).
    const delivered = await deliver();
    assert.deepEqual(
      delivered.map((m) => m.type),
      ['iot.alert.raised', 'iot.alert.resolved', 'iot.alert.raised'],
    );
    const messages = delivered.filter((m) => m.type === 'iot.alert.raised');
    const [first, second] = messages.map((m) => m.body.data);
    assert.deepEqual(Object.keys(first).slice(0, 10), [
      'alert_id',
      'device_id',
      'device_code',
      'zone_id',
      'parcel_ids',
      'metric',
      'value',
      'threshold',
      'severity',
      'message',
    ]);
    assert.equal(first.device_id, device.id);
    assert.equal(first.device_code, 'nursery-1');
    assert.equal(first.zone_id, places.zoneId);
    assert.deepEqual(
      first.parcel_ids,
      [...places.parcelIds].sort((a, b) => a - b),
    );
    assert.equal(first.metric, 'humidity');
    assert.equal(first.value, 38);
    assert.equal(first.threshold, 40);
    assert.equal(first.severity, 'warning');
    assert.equal(first.message, 'dry: 38%');
    assert.equal(second.value, 30);
    const alerts = (await api.get('/api/iot/alerts')).body;
    assert.deepEqual(
      alerts.map((a: { id: number }) => a.id),
      [second.alert_id, first.alert_id],
    );
  });

  it('iot.device.offline: once per outage, and back online with the next heartbeat', async () => {
    await api.post('/api/iot/devices', {
      json: { code: 'gate-1', name: 'Gate sensor', zone_id: places.zoneId, heartbeat_timeout_seconds: 60 },
    });
    await api.post('/api/iot/heartbeats', { json: { device_code: 'gate-1' } });
    const deps = { db: t.database.db, clock: t.clock };
    // Other devices of this file go silent too as the clock moves; follow this one.
    const gateEvents = (messages: { body: any; type: string }[]) =>
      messages.filter((m) => m.body.data.device_code === 'gate-1');
    t.clock.advance(59_000);
    await sweepOfflineDevices(deps);
    assert.deepEqual(
      (await deliver()).filter((m) => m.body.data.device_code === 'gate-1'),
      [],
    );

    t.clock.advance(2_000);
    await sweepOfflineDevices(deps);
    await sweepOfflineDevices(deps);
    const outage = (await deliver()).filter((m) => m.body.data.device_code === 'gate-1');
    assert.equal(outage.length, 1);
    assert.equal(outage[0]!.type, 'iot.device.offline');
    const data = outage[0]!.body.data;
    assert.deepEqual(Object.keys(data), [
      'device_id',
      'device_code',
      'device_name',
      'zone_id',
      'parcel_ids',
      'last_heartbeat',
    ]);
    assert.equal(data.device_name, 'Gate sensor');
    assert.equal(data.last_heartbeat, new Date(t.clock.now() - 61_000).toISOString());
    const devices = (await api.get('/api/iot/devices?pageLimit=100')).body;
    assert.equal(devices.find((d: { code: string }) => d.code === 'gate-1').status, 'offline');

    // Still silent: no second event for the same outage.
    t.clock.advance(600_000);
    await sweepOfflineDevices(deps);
    assert.deepEqual(gateEvents(await deliver()), []);

    // A heartbeat ends the outage (iot.device.online); the next silence is a new one.
    const back = await api.post('/api/iot/heartbeats', { json: { device_code: 'gate-1' } });
    assert.equal(back.body[0].status, 'online');
    t.clock.advance(61_000);
    await sweepOfflineDevices(deps);
    assert.deepEqual(
      (await deliver()).map((m) => m.type),
      ['iot.device.online', 'iot.device.offline'],
    );
  });

  it('harvest.batch.created: on confirm, with the data fields of the specification; never twice', async () => {
    const batch = (
      await api.post('/api/harvest/batches', {
        json: {
          parcel_id: places.parcelIds[0],
          crop_type_id: places.cropTypeId,
          quantity_kg: 1250.5,
          harvested_at: '2026-07-02T06:00:00Z',
        },
      })
    ).body[0];
    assert.deepEqual(await deliver(), []); // declaring raises nothing
    const confirmed = (await api.post(`/api/harvest/batches/${batch.id}/confirm`)).body[0];
    assert.equal((await api.post(`/api/harvest/batches/${batch.id}/confirm`)).status, 409);
    const messages = await deliver();
    assert.equal(messages.length, 1);
    assert.equal(messages[0]!.type, 'harvest.batch.created');
    assert.deepEqual(messages[0]!.body.data, {
      harvest_record_id: batch.id,
      parcel_id: places.parcelIds[0],
      crop_type_id: places.cropTypeId,
      quantity_kg: 1250.5,
      confirmed_at: confirmed.confirmed_at,
    });
  });

  if (database.dialect === 'postgres') {
    it('two sweepers racing on one PostgreSQL database raise one event per outage', async () => {
      const codes = Array.from({ length: 20 }, (_, i) => `race-${i}`);
      for (const code of codes) {
        await api.post('/api/iot/devices', { json: { code, heartbeat_timeout_seconds: 30 } });
      }
      await api.post('/api/iot/readings', {
        json: { readings: codes.map((device_code) => ({ device_code, metric: 'battery', value: 90 })) },
      });
      t.clock.advance(31_000);
      const second = openDatabase(database.url, { maxConnections: 5 });
      try {
        const results = await Promise.all([
          sweepOfflineDevices({ db: t.database.db, clock: t.clock }),
          sweepOfflineDevices({ db: second.db, clock: t.clock }),
        ]);
        assert.equal(results[0]! + results[1]!, codes.length);
      } finally {
        await second.close();
      }
      const offline = (await deliver()).filter(
        (m) => m.type === 'iot.device.offline' && m.body.data.device_code.startsWith('race-'),
      );
      assert.equal(offline.length, codes.length);
      assert.equal(new Set(offline.map((m) => m.body.data.device_code)).size, codes.length);
    });
  }
});
