import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';

forEachDialect('harvest batches', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let api: ReturnType<typeof client>;
  let ownerApi: ReturnType<typeof client>;
  let otherApi: ReturnType<typeof client>;
  let parcelId: number;
  let cropTypeId: number;

  before(async () => {
    t = await startTestApp(database.url);
    farm = await makeTenant(t.database.db);
    const other = await makeTenant(t.database.db);
    const staff = await makeUser(t.database.db, farm, 'staff');
    api = client(t.url, await loginToken(t.url, farm.code, staff));
    ownerApi = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    otherApi = client(t.url, await loginToken(t.url, other.code, other.owner));
    // Places are the owner's to make; staff declare the harvests.
    const farmRow = (await ownerApi.post('/api/farms', { json: { name: 'River farm' } })).body[0];
    parcelId = (
      await ownerApi.post('/api/parcels', { json: { name: 'East field', code: 'E1', farm_id: farmRow.id } })
    ).body[0].id;
    cropTypeId = (await api.post('/api/croptype/croptype', { json: { name: 'Dragon fruit' } })).body[0].id;
  });
  after(() => t.close());

  const declare = (json: Record<string, unknown>) => api.post('/api/harvest/batches', { json });

  it('declares a batch', async () => {
    const res = await declare({
      parcel_id: parcelId,
      crop_type_id: String(cropTypeId),
      quantity_kg: 1250.5,
      harvested_at: '2026-07-01 06:30:00',
      notes: 'Morning pick',
    });
    assert.equal(res.status, 201, res.text);
    const batch = res.body[0];
    assert.equal(res.headers.get('location'), `/api/harvest/batches/${batch.id}`);
    assert.equal(batch.status, 'declared');
    assert.equal(batch.quantity_kg, 1250.5);
    assert.equal(batch.harvested_at, '2026-07-01T06:30:00.000Z');
    assert.equal(batch.confirmed_at, null);
    assert.equal(batch.notes, 'Morning pick');
    assert.deepEqual((await api.get(`/api/harvest/batches/${batch.id}`)).body, [batch]);
  });

  it('refuses bad batches, naming every field, and writes nothing', async () => {
    const before = (await api.get('/api/harvest/batches')).headers.get('x-total-count');
    const res = await declare({
      parcel_id: 999999,
      crop_type_id: cropTypeId,
      quantity_kg: 0,
      harvested_at: 'soon',
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
      'harvested_at',
      'quantity_kg',
    ]);
    const refs = await declare({ parcel_id: 999999, crop_type_id: 888888, quantity_kg: 5 });
    assert.equal(refs.status, 422);
    assert.deepEqual(refs.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
      'crop_type_id',
      'parcel_id',
    ]);
    const missing = await declare({});
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
      'crop_type_id',
      'parcel_id',
      'quantity_kg',
    ]);
    assert.equal((await api.get('/api/harvest/batches')).headers.get('x-total-count'), before);
  });

  it('confirms once; a second confirm is a 409', async () => {
    const batch = (await declare({ parcel_id: parcelId, crop_type_id: cropTypeId, quantity_kg: 80 })).body[0];
    t.clock.advance(5000);
    const confirmed = await ownerApi.post(`/api/harvest/batches/${batch.id}/confirm`);
    assert.equal(confirmed.status, 200);
    assert.equal(confirmed.body[0].status, 'confirmed');
    assert.equal(confirmed.body[0].confirmed_at, new Date(t.clock.now()).toISOString());
    assert.equal(confirmed.body[0].confirmed_by, farm.owner.id);
    const again = await ownerApi.post(`/api/harvest/batches/${batch.id}/confirm`);
    assert.equal(again.status, 409);
    assert.equal(again.body[0].meta.status_code, 409);
    assert.equal(
      (await api.get(`/api/harvest/batches/${batch.id}`)).body[0].confirmed_at,
      confirmed.body[0].confirmed_at,
    );
    const confirmedList = await api.get('/api/harvest/batches?status=confirmed');
    assert.ok(confirmedList.body.every((b: { status: string }) => b.status === 'confirmed'));
    assert.ok(confirmedList.body.some((b: { id: number }) => b.id === batch.id));
  });

  it('staff declare, owners confirm: a staff confirm is a 403 and changes nothing', async () => {
    const batch = (await declare({ parcel_id: parcelId, crop_type_id: cropTypeId, quantity_kg: 7 })).body[0];
    const res = await api.post(`/api/harvest/batches/${batch.id}/confirm`);
    assert.equal(res.status, 403);
    assert.equal(res.body[0].meta.status_code, 403);
    assert.equal((await api.get(`/api/harvest/batches/${batch.id}`)).body[0].status, 'declared');
    // Even for a batch that does not exist: the role is checked first.
    assert.equal((await api.post('/api/harvest/batches/999999/confirm')).status, 403);
  });

  it('confirms once when confirmations race', async () => {
    const batch = (await declare({ parcel_id: parcelId, crop_type_id: cropTypeId, quantity_kg: 12 })).body[0];
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => ownerApi.post(`/api/harvest/batches/${batch.id}/confirm`)),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409, 409]);
  });

  it('keeps batches to their tenant', async () => {
    const batch = (await declare({ parcel_id: parcelId, crop_type_id: cropTypeId, quantity_kg: 3 })).body[0];
    assert.equal((await otherApi.get(`/api/harvest/batches/${batch.id}`)).status, 404);
    assert.equal((await otherApi.post(`/api/harvest/batches/${batch.id}/confirm`)).status, 404);
    assert.ok(
      !(await otherApi.get('/api/harvest/batches')).body.some((b: { id: number }) => b.id === batch.id),
    );
    // Another tenant's parcel cannot be named.
    const res = await otherApi.post('/api/harvest/batches', {
      json: { parcel_id: parcelId, crop_type_id: cropTypeId, quantity_kg: 1 },
    });
    assert.equal(res.status, 422);
  });
});
