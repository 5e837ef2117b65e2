import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, type TestTenant } from '../../../test/support/factories.js';
import { findOverdueDevices, markDeviceOffline, recordHeartbeats } from './device.repository.js';
import { sweepOfflineDevices } from './offline-sweeper.js';

type Api = ReturnType<typeof client>;

/** A farm with two zones and three parcels, made through the API as a client would. */
async function makePlaces(api: Api) {
  const farm = (await api.post('/api/farms', { json: { name: 'North farm' } })).body[0];
  const zoneA = (await api.post('/api/zones', { json: { name: 'Greenhouse A', farm_id: farm.id } })).body[0];
  const zoneB = (await api.post('/api/zones', { json: { name: 'Orchard', farm_id: farm.id } })).body[0];
  const parcel = async (name: string, zone: number) =>
    (await api.post('/api/parcels', { json: { name, code: name, farm_id: farm.id, zone_id: zone } })).body[0];
  return {
    farm,
    zoneA,
    zoneB,
    parcels: [await parcel('P1', zoneA.id), await parcel('P2', zoneA.id), await parcel('P3', zoneB.id)],
  };
}

forEachDialect('IoT devices, rules, readings and alerts', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let api: Api;
  let otherApi: Api;
  let places: Awaited<ReturnType<typeof makePlaces>>;

  before(async () => {
    t = await startTestApp(database.url);
    farm = await makeTenant(t.database.db);
    const other = await makeTenant(t.database.db);
    api = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    otherApi = client(t.url, await loginToken(t.url, other.code, other.owner));
    places = await makePlaces(api);
  });
  after(() => t.close());

  const device = async (code: string, extra: Record<string, unknown> = {}) => {
    const res = await api.post('/api/iot/devices', { json: { code, zone_id: places.zoneA.id, ...extra } });
    assert.equal(res.status, 201, res.text);
    return res.body[0];
  };
  const send = (readings: unknown[]) => api.post('/api/iot/readings', { json: { readings } });

  describe('devices', () => {
    it('creates a device with its parcels; it is offline until heard from', async () => {
      const res = await api.post('/api/iot/devices', {
        json: {
          code: 'gh-a-1',
          name: 'Greenhouse A probe',
          zone_id: places.zoneA.id,
          parcel_ids: [places.parcels[1].id, places.parcels[0].id],
          id: 999,
        },
      });
      assert.equal(res.status, 201);
      const created = res.body[0];
      assert.equal(res.headers.get('location'), `/api/iot/devices/${created.id}`);
      assert.notEqual(created.id, 999);
      assert.deepEqual(Object.keys(created).sort(), [
        'code',
        'created_at',
        'heartbeat_timeout_seconds',
        'id',
        'last_heartbeat',
        'name',
        'parcel_ids',
        'status',
        'updated_at',
        'zone_id',
      ]);
      assert.equal(created.status, 'offline');
      assert.equal(created.last_heartbeat, null);
      assert.equal(created.heartbeat_timeout_seconds, 300);
      assert.deepEqual(
        created.parcel_ids,
        [places.parcels[0].id, places.parcels[1].id].sort((a, b) => a - b),
      );
      const detail = await api.get(`/api/iot/devices/${created.id}`);
      assert.deepEqual(detail.body, [created]);
    });

    it('refuses a taken code, a bad code, and references outside the tenant, naming the fields', async () => {
      await device('dup-1');
      const taken = await api.post('/api/iot/devices', { json: { code: 'dup-1' } });
      assert.equal(taken.status, 422);
      assert.deepEqual(
        taken.body[0].meta.errors.map((e: { field: string }) => e.field),
        ['code'],
      );
      const otherPlaces = await makePlaces(otherApi);
      const bad = await api.post('/api/iot/devices', {
        json: { code: 'x-1', zone_id: otherPlaces.zoneA.id, parcel_ids: [otherPlaces.parcels[0].id] },
      });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
        'parcel_ids',
        'zone_id',
      ]);
      const badCode = await api.post('/api/iot/devices', {
        json: { code: 'has space', heartbeat_timeout_seconds: 1 },
      });
      assert.equal(badCode.status, 422);
      assert.deepEqual(badCode.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
        'code',
        'heartbeat_timeout_seconds',
      ]);
    });

    it('changes only what is sent, deletes softly, and frees the code', async () => {
      const d = await device('chg-1', { name: 'Before' });
      const res = await api.put(`/api/iot/devices/${d.id}`, {
        json: { name: 'After', heartbeat_timeout_seconds: 60 },
        headers: { prefer: 'return=representation' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body[0].name, 'After');
      assert.equal(res.body[0].heartbeat_timeout_seconds, 60);
      assert.equal(res.body[0].zone_id, places.zoneA.id);
      assert.equal((await api.delete(`/api/iot/devices/${d.id}`)).status, 200);
      assert.equal((await api.get(`/api/iot/devices/${d.id}`)).status, 404);
      await device('chg-1');
    });

    it('takes 0 as "no zone", as the original clients send it', async () => {
      const d = await device('zero-zone', { zone_id: 0 });
      assert.equal(d.zone_id, null);
      const renamed = await api.put(`/api/iot/devices/${d.id}`, {
        json: { name: '   ' },
        headers: { prefer: 'return=representation' },
      });
      assert.equal(renamed.body[0].name, 'zero-zone'); // a blank name falls back to the code
    });

    it('hides devices from other tenants: 404 to read, change or delete, absent from lists', async () => {
      const d = await device('private-1');
      assert.equal((await otherApi.get(`/api/iot/devices/${d.id}`)).status, 404);
      assert.equal((await otherApi.put(`/api/iot/devices/${d.id}`, { json: { name: 'x' } })).status, 404);
      assert.equal((await otherApi.delete(`/api/iot/devices/${d.id}`)).status, 404);
      const list = await otherApi.get('/api/iot/devices?pageLimit=1000');
      assert.ok(!list.body.some((x: { code: string }) => x.code === 'private-1'));
      const send = await otherApi.post('/api/iot/readings', {
        json: { readings: [{ device_code: 'private-1', metric: 't', value: 1 }] },
      });
      assert.equal(send.status, 422);
    });
  });

  describe('rules', () => {
    it('aims a rule at exactly one of a device and a zone', async () => {
      const d = await device('rule-target-1');
      const both = await api.post('/api/iot/rules', {
        json: {
          metric: 'temperature',
          operator: 'gt',
          threshold: 30,
          device_id: d.id,
          zone_id: places.zoneA.id,
        },
      });
      assert.equal(both.status, 422);
      const neither = await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30 },
      });
      assert.equal(neither.status, 422);
      const bad = await api.post('/api/iot/rules', {
        json: { metric: 'Temp C', operator: 'above', threshold: 'hot', severity: 'fatal', device_id: d.id },
      });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
        'metric',
        'operator',
        'severity',
        'threshold',
      ]);
      const ok = await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: '30.5', device_id: d.id },
      });
      assert.equal(ok.status, 201);
      assert.equal(ok.body[0].threshold, 30.5);
      assert.equal(ok.body[0].severity, 'warning');
      assert.equal(ok.body[0].zone_id, null);
    });
  });

  describe('rule changes', () => {
    it('keeps the alert state when only the text or severity changes, and resets it for a new condition', async () => {
      const d = await device('rule-change-1');
      const rule = (
        await api.post('/api/iot/rules', {
          json: { metric: 'ph', operator: 'lt', threshold: 5, device_id: d.id, zone_id: 0 },
        })
      ).body[0];
      assert.equal(rule.zone_id, null);
      const reading = async (value: number) => {
        t.clock.advance(1000);
        const res = await send([{ device_code: 'rule-change-1', metric: 'ph', value }]);
        return res.body.data.results[0].alert_ids.length;
      };
      assert.equal(await reading(4), 1);
      await api.put(`/api/iot/rules/${rule.id}`, { json: { message: 'acid soil', severity: 'critical' } });
      assert.equal(await reading(4.5), 0); // still the same excursion
      await api.put(`/api/iot/rules/${rule.id}`, { json: { threshold: 4.8 } });
      assert.equal(await reading(4.5), 1); // a new condition decides anew
    });
  });

  describe('readings', () => {
    it('raises an alert only when a value crosses the threshold from the normal side', async () => {
      const d = await device('edge-1');
      const rule = (
        await api.post('/api/iot/rules', {
          json: {
            metric: 'temperature',
            operator: 'gt',
            threshold: 30,
            severity: 'critical',
            device_id: d.id,
            message: '{device_code} at {value}',
          },
        })
      ).body[0];
      const values = [25, 31, 35, 29, 33, 34, 20];
      const raised: number[] = [];
      for (const [i, value] of values.entries()) {
        t.clock.advance(1000);
        const res = await send([
          {
            device_code: 'edge-1',
            metric: 'temperature',
            value,
            recorded_at: new Date(t.clock.now()).toISOString(),
          },
        ]);
        assert.equal(res.status, 200, res.text);
        if (res.body.data.results[0].alert_ids.length > 0) raised.push(i);
      }
      assert.deepEqual(raised, [1, 4]);
      const alerts = (await api.get(`/api/iot/alerts?device_id=${d.id}`)).body;
      assert.equal(alerts.length, 2);
      assert.equal(alerts[0].value, 33); // newest first
      assert.equal(alerts[1].value, 31);
      assert.equal(alerts[0].message, 'edge-1 at 33');
      assert.equal(alerts[0].rule_id, rule.id);
      assert.equal(alerts[0].severity, 'critical');
      // Readings are stored, newest first.
      const stored = (await api.get(`/api/iot/devices/${d.id}/readings?metric=temperature`)).body;
      assert.deepEqual(
        stored.map((r: { value: number }) => r.value),
        [...values].reverse(),
      );
    });

    it('applies a zone rule to every device of the zone, and only those', async () => {
      await device('zone-a-1');
      await device('zone-a-2');
      await device('zone-b-1', { zone_id: places.zoneB.id });
      await api.post('/api/iot/rules', {
        json: { metric: 'soil_moisture', operator: 'lt', threshold: 20, zone_id: places.zoneA.id },
      });
      const res = await send([
        { device_code: 'zone-a-1', metric: 'soil_moisture', value: 10 },
        { device_code: 'zone-a-2', metric: 'soil_moisture', value: 12 },
        { device_code: 'zone-b-1', metric: 'soil_moisture', value: 5 },
        { device_code: 'zone-a-1', metric: 'humidity', value: 1 },
      ]);
      assert.deepEqual(
        res.body.data.results.map((r: { alert_ids: number[] }) => r.alert_ids.length),
        [1, 1, 0, 0],
      );
    });

    it('orders a batch by recorded_at and ignores out-of-order readings for the alert state', async () => {
      const d = await device('order-1');
      await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
      });
      const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
      // In one batch, sent out of order: by time it goes 20 (s=1), 40 (s=2) → one alert.
      const first = await send([
        { device_code: 'order-1', metric: 'temperature', value: 40, recorded_at: at(2) },
        { device_code: 'order-1', metric: 'temperature', value: 20, recorded_at: at(1) },
      ]);
      assert.deepEqual(
        first.body.data.results.map((r: { alert_ids: number[] }) => r.alert_ids.length),
        [1, 0],
      );
      // An older normal reading is stored but does not re-arm the rule...
      const late = await send([
        { device_code: 'order-1', metric: 'temperature', value: 10, recorded_at: at(0) },
      ]);
      assert.equal(late.body.data.results[0].status, 'accepted');
      // ...so the next breach raises nothing.
      const again = await send([
        { device_code: 'order-1', metric: 'temperature', value: 45, recorded_at: at(3) },
      ]);
      assert.deepEqual(again.body.data.results[0].alert_ids, []);
      assert.equal((await api.get(`/api/iot/devices/${d.id}/readings`)).body.length, 4);
    });

    it('rejects bad readings one by one and keeps the good ones of the batch', async () => {
      const d = await device('mixed-1');
      const res = await send([
        { device_code: 'mixed-1', metric: 'temperature', value: 21.5 },
        { device_code: 'no-such-device', metric: 'temperature', value: 20 },
        { device_code: 'mixed-1', metric: 'Bad Metric', value: 20 },
        { device_code: 'mixed-1', metric: 'temperature', value: 'warm' },
        { device_code: 'mixed-1', metric: 'temperature', value: 20, recorded_at: 'yesterday' },
        'not an object',
        { device_code: 'mixed-1', metric: 'humidity', value: '55' },
      ]);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.accepted, 2);
      assert.equal(res.body.data.rejected, 5);
      const byIndex = res.body.data.results;
      assert.deepEqual(
        byIndex.map((r: { status: string }) => r.status),
        ['accepted', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'accepted'],
      );
      assert.deepEqual(
        byIndex[1].errors.map((e: { field: string }) => e.field),
        ['readings.1.device_code'],
      );
      assert.match(byIndex[1].errors[0].message, /does not exist/);
      assert.deepEqual(
        byIndex[2].errors.map((e: { field: string }) => e.field),
        ['readings.2.metric'],
      );
      assert.deepEqual(
        byIndex[3].errors.map((e: { field: string }) => e.field),
        ['readings.3.value'],
      );
      assert.deepEqual(
        byIndex[4].errors.map((e: { field: string }) => e.field),
        ['readings.4.recorded_at'],
      );
      assert.deepEqual(
        byIndex[5].errors.map((e: { field: string }) => e.field),
        ['readings.5'],
      );
      const stored = (await api.get(`/api/iot/devices/${d.id}/readings`)).body;
      assert.deepEqual(stored.map((r: { value: number }) => r.value).sort(), [21.5, 55]);
      // Each accepted reading is a heartbeat.
      const after = (await api.get(`/api/iot/devices/${d.id}`)).body[0];
      assert.equal(after.status, 'online');
      assert.equal(after.last_heartbeat, new Date(t.clock.now()).toISOString());
    });

    it('answers 422 when no reading is accepted, and refuses batches over 1000', async () => {
      const none = await send([{ device_code: 'ghost', metric: 'temperature', value: 1 }]);
      assert.equal(none.status, 422);
      assert.deepEqual(
        none.body[0].meta.errors.map((e: { field: string }) => e.field),
        ['readings.0.device_code'],
      );
      const big = await send(
        Array.from({ length: 1001 }, () => ({ device_code: 'ghost', metric: 't', value: 1 })),
      );
      assert.equal(big.status, 422);
      assert.equal((await api.post('/api/iot/readings', { json: { readings: [] } })).status, 422);
      assert.equal((await api.post('/api/iot/readings', { json: { readings: 'many' } })).status, 422);
    });

    it('takes 1000 readings in one call', async () => {
      await device('bulk-1');
      const readings = Array.from({ length: 1000 }, (_, i) => ({
        device_code: 'bulk-1',
        metric: 'temperature',
        value: i % 50,
      }));
      const res = await send(readings);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.accepted, 1000);
    });
  });

  describe('heartbeats', () => {
    it('brings a device online; an unknown code is a 422 naming device_code', async () => {
      const d = await device('hb-1');
      const res = await api.post('/api/iot/heartbeats', { json: { device_code: 'hb-1' } });
      assert.equal(res.status, 200);
      assert.equal(res.body[0].id, d.id);
      assert.equal(res.body[0].status, 'online');
      const unknown = await api.post('/api/iot/heartbeats', { json: { device_code: 'nope' } });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body[0].meta.errors[0].field, 'device_code');
    });
  });
  describe('under concurrency', () => {
    it('raises one alert when parallel batches cross the same threshold', async () => {
      const d = await device('parallel-1');
      await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
      });
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          send([{ device_code: 'parallel-1', metric: 'temperature', value: 40 }]),
        ),
      );
      assert.ok(answers.every((a) => a.status === 200));
      const alerts = (await api.get(`/api/iot/alerts?device_id=${d.id}`)).body;
      assert.equal(alerts.length, 1);
    });

    it('lets a heartbeat that lands after the sweeper looked win over the sweeper', async () => {
      const d = await device('race-hb-1', { heartbeat_timeout_seconds: 10 });
      await api.post('/api/iot/heartbeats', { json: { device_code: 'race-hb-1' } });
      t.clock.advance(11_000);
      const seen = (await findOverdueDevices(t.database.db, t.clock.now(), 1000)).find((o) => o.id === d.id);
      assert.ok(seen);
      await api.post('/api/iot/heartbeats', { json: { device_code: 'race-hb-1' } }); // arrives meanwhile
      const scope = { db: t.database.db, tenantId: farm.id };
      assert.equal(await markDeviceOffline(scope, d.id, seen.last_heartbeat_at, t.clock.now()), false);
      assert.equal((await api.get(`/api/iot/devices/${d.id}`)).body[0].status, 'online');
    });

    it('never moves a heartbeat backwards', async () => {
      const d = await device('hb-order-1');
      await api.post('/api/iot/heartbeats', { json: { device_code: 'hb-order-1' } });
      const latest = (await api.get(`/api/iot/devices/${d.id}`)).body[0].last_heartbeat;
      await recordHeartbeats({ db: t.database.db, tenantId: farm.id }, [d.id], t.clock.now() - 60_000);
      assert.equal((await api.get(`/api/iot/devices/${d.id}`)).body[0].last_heartbeat, latest);
    });

    it('gives devices a whole timeout after the service was away before they count as silent', async () => {
      const d = await device('outage-1', { heartbeat_timeout_seconds: 60 });
      await api.post('/api/iot/heartbeats', { json: { device_code: 'outage-1' } });
      t.clock.advance(3_600_000); // the service was down for an hour
      const deps = { db: t.database.db, clock: t.clock };
      const restartedAt = t.clock.now();
      const isOffline = async () => (await api.get(`/api/iot/devices/${d.id}`)).body[0].status === 'offline';
      await sweepOfflineDevices(deps, { notBefore: restartedAt });
      assert.equal(await isOffline(), false);
      t.clock.advance(59_000);
      await sweepOfflineDevices(deps, { notBefore: restartedAt });
      assert.equal(await isOffline(), false);
      t.clock.advance(1_000);
      await sweepOfflineDevices(deps, { notBefore: restartedAt });
      assert.equal(await isOffline(), true);
    });
  });
});
