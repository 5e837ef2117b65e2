// Harvest totals: kilograms and batches per crop type or parcel over a period, confirmed by default.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser } from '../../../test/support/factories.js';
import { inlineSchemas } from '../../../test/support/openapi.js';

type Api = ReturnType<typeof client>;

/** A farm with two parcels and two crop types, as the API makes them. */
async function places(api: Api) {
  const farm = (await api.post('/api/farms', { json: { name: 'River farm' } })).body[0];
  const parcel = async (code: string) =>
    (await api.post('/api/parcels', { json: { name: `Field ${code}`, code, farm_id: farm.id } })).body[0].id;
  const cropType = async (name: string) =>
    (await api.post('/api/croptype/croptype', { json: { name } })).body[0].id;
  return {
    east: (await parcel('E1')) as number,
    west: (await parcel('W1')) as number,
    mango: (await cropType('Mango')) as number,
    lime: (await cropType('Lime')) as number,
  };
}

forEachDialect('harvest totals', (database) => {
  let t: TestApp;
  let owner: Api;
  let staff: Api;
  let otherOwner: Api;
  let p: Awaited<ReturnType<typeof places>>;
  let other: Awaited<ReturnType<typeof places>>;

  /** Declares a batch as staff, and confirms it as the owner unless told. */
  const batch = async (
    api: Api,
    confirmer: Api | undefined,
    json: { parcel_id: number; crop_type_id: number; quantity_kg: number; harvested_at: string },
  ) => {
    const res = await api.post('/api/harvest/batches', { json });
    assert.equal(res.status, 201, res.text);
    if (confirmer) {
      const confirmed = await confirmer.post(`/api/harvest/batches/${res.body[0].id}/confirm`);
      assert.equal(confirmed.status, 200, confirmed.text);
    }
  };

  before(async () => {
    t = await startTestApp(database.url);
    const farm = await makeTenant(t.database.db);
    const otherFarm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    staff = client(t.url, await loginToken(t.url, farm.code, await makeUser(t.database.db, farm, 'staff')));
    otherOwner = client(t.url, await loginToken(t.url, otherFarm.code, otherFarm.owner));
    p = await places(owner);
    other = await places(otherOwner);

    // Confirmed: mango 0.1 + 0.2 kg on the east field, 100 kg on the west, lime 50 kg (in August).
    await batch(staff, owner, {
      parcel_id: p.east,
      crop_type_id: p.mango,
      quantity_kg: 0.1,
      harvested_at: '2026-07-01 06:00:00',
    });
    await batch(staff, owner, {
      parcel_id: p.east,
      crop_type_id: p.mango,
      quantity_kg: 0.2,
      harvested_at: '2026-07-31 23:30:00',
    });
    await batch(staff, owner, {
      parcel_id: p.west,
      crop_type_id: p.mango,
      quantity_kg: 100,
      harvested_at: '2026-07-15 08:00:00',
    });
    await batch(staff, owner, {
      parcel_id: p.west,
      crop_type_id: p.lime,
      quantity_kg: 50,
      harvested_at: '2026-08-02 07:00:00',
    });
    // Declared only: 1000 kg of lime on the east field.
    await batch(staff, undefined, {
      parcel_id: p.east,
      crop_type_id: p.lime,
      quantity_kg: 1000,
      harvested_at: '2026-07-20 09:00:00',
    });
    // Another tenant's confirmed batch, in the same period.
    await batch(otherOwner, otherOwner, {
      parcel_id: other.east,
      crop_type_id: other.mango,
      quantity_kg: 9999,
      harvested_at: '2026-07-10 09:00:00',
    });
  });
  after(() => t.close());

  const totals = async (api: Api, query: string) => {
    const res = await api.get(`/api/harvest/totals?${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  it('sums confirmed batches per crop type by default, largest first, with names', async () => {
    assert.deepEqual(await totals(staff, 'by=crop_type'), [
      { id: p.mango, name: 'Mango', quantity_kg: 100.3, batch_count: 3 },
      { id: p.lime, name: 'Lime', quantity_kg: 50, batch_count: 1 },
    ]);
    assert.deepEqual(
      await totals(owner, 'by=crop_type&status=confirmed'),
      await totals(owner, 'by=crop_type'),
    );
  });

  it('sums per parcel', async () => {
    assert.deepEqual(await totals(owner, 'by=parcel'), [
      { id: p.west, name: 'Field W1', quantity_kg: 150, batch_count: 2 },
      { id: p.east, name: 'Field E1', quantity_kg: 0.3, batch_count: 2 },
    ]);
  });

  it('chooses the status: declared, or all', async () => {
    assert.deepEqual(await totals(owner, 'by=crop_type&status=declared'), [
      { id: p.lime, name: 'Lime', quantity_kg: 1000, batch_count: 1 },
    ]);
    assert.deepEqual(await totals(owner, 'by=parcel&status=all'), [
      { id: p.east, name: 'Field E1', quantity_kg: 1000.3, batch_count: 3 },
      { id: p.west, name: 'Field W1', quantity_kg: 150, batch_count: 2 },
    ]);
  });

  it('counts a period: a date-only `to` includes its whole day', async () => {
    assert.deepEqual(await totals(owner, 'by=parcel&from=2026-07-01&to=2026-07-31'), [
      { id: p.west, name: 'Field W1', quantity_kg: 100, batch_count: 1 },
      { id: p.east, name: 'Field E1', quantity_kg: 0.3, batch_count: 2 },
    ]);
    assert.deepEqual(await totals(owner, 'by=parcel&from=2026-07-01&to=2026-07-31 12:00:00'), [
      { id: p.west, name: 'Field W1', quantity_kg: 100, batch_count: 1 },
      { id: p.east, name: 'Field E1', quantity_kg: 0.1, batch_count: 1 },
    ]);
    assert.deepEqual(await totals(owner, 'by=crop_type&from=2026-08-01'), [
      { id: p.lime, name: 'Lime', quantity_kg: 50, batch_count: 1 },
    ]);
    assert.deepEqual(await totals(owner, 'by=crop_type&to=2026-06-30'), []);
  });

  it('never counts another tenant’s batches', async () => {
    assert.deepEqual(await totals(otherOwner, 'by=crop_type&status=all'), [
      { id: other.mango, name: 'Mango', quantity_kg: 9999, batch_count: 1 },
    ]);
    const ours = await totals(owner, 'by=crop_type&status=all');
    assert.ok(!ours.some((g: { id: number }) => g.id === other.mango));
  });

  it('refuses a bad query, naming every field', async () => {
    const fields = async (query: string) => {
      const res = await owner.get(`/api/harvest/totals${query}`);
      assert.equal(res.status, 422, res.text);
      return res.body[0].meta.errors.map((e: { field: string }) => e.field).sort();
    };
    assert.deepEqual(await fields(''), ['by']);
    assert.deepEqual(await fields('?by=farm&status=maybe&from=soon'), ['by', 'from', 'status']);
    assert.deepEqual(await fields('?by=parcel&from=2026-02-30&to=2026-13-01'), ['from', 'to']);
  });

  it('is documented in OpenAPI, and confirming documents its 403', async () => {
    const doc = inlineSchemas((await client(t.url).get('/openapi.json')).body);
    const op = doc.paths['/api/harvest/totals'].get;
    assert.deepEqual(op.parameters.map((q: { name: string }) => q.name).sort(), [
      'by',
      'from',
      'status',
      'to',
    ]);
    assert.ok(op.responses['200'] && op.responses['422']);
    assert.ok(doc.paths['/api/harvest/batches/{id}/confirm'].post.responses['403']);
  });

  it('needs a token', async () => {
    const res = await client(t.url).get('/api/harvest/totals?by=parcel');
    assert.equal(res.status, 401);
  });
});
