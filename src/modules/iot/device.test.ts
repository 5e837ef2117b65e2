// IoT devices through the API: create, change, delete, tenant isolation, heartbeats.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { forEachDialect } from '../../../test/support/databases.js';
import { type Api, type IotFixture, iotFixture, makePlaces } from '../../../test/support/iot.js';

forEachDialect('IoT devices and heartbeats', (database) => {
  const f = iotFixture(database);
  const { device } = f;
  let api: Api;
  let otherApi: Api;
  let places: IotFixture['places'];
  before(() => {
    ({ api, otherApi, places } = f);
  });

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
        'dev_eui',
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
});
