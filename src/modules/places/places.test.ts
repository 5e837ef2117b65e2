import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { type Client, invalidFields } from '../../../test/support/resources.js';

forEachDialect('farms and places', (database) => {
  let t: TestApp;
  let c: Client;
  let tenant: TestTenant;

  before(async () => {
    t = await startTestApp(database.url);
    tenant = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, tenant.code, tenant.owner));
  });
  after(() => t.close());

  it('answers the farm object of spec 2.7', async () => {
    const res = await c.post('/api/farms', {
      json: {
        name: 'River farm',
        surface: '3.2 ha',
        lat: 10.03,
        lng: '105.78',
        address: 'Can Tho',
        published: '1',
        ownership: 'leased',
        order: '4',
        avatar: ['/a.png'],
        tenant_id: 99999,
        created_by: 99999,
      },
    });
    assert.deepEqual(res.body[0], {
      id: res.body[0].id,
      name: 'River farm',
      surface: '3.2 ha',
      lat: '10.03',
      lng: '105.78',
      address: 'Can Tho',
      published: 1,
      ownership: 'leased',
      description: '',
      order: 4,
      avatar: '["/a.png"]',
      tenant_id: tenant.id,
      created_by: tenant.owner.id,
    });
  });

  it('blocks, zones and parcels belong to a farm; lists filter by farm_id', async () => {
    const farmA = (await c.post('/api/farms', { json: { name: 'A' } })).body[0].id;
    const farmB = (await c.post('/api/farms', { json: { name: 'B' } })).body[0].id;
    const block = (await c.post('/api/blocks', { json: { name: 'A-block', farm_id: farmA } })).body[0];
    await c.post('/api/blocks', { json: { name: 'B-block', farm_id: farmB } });
    const zone = (await c.post('/api/zones', { json: { name: 'A-zone', farm_id: farmA } })).body[0];
    const onlyA = await c.get(`/api/blocks?farm_id=${farmA}`);
    assert.deepEqual(onlyA.body, [block]);
    const parcel = await c.post('/api/parcels', {
      form: `name=P&code=P-1&farm_id=${farmA}&block_id=${block.id}&zone_id=${zone.id}&area=12.5`,
    });
    assert.deepEqual(parcel.body[0], {
      id: parcel.body[0].id,
      name: 'P',
      code: 'P-1',
      farm_id: farmA,
      block_id: block.id,
      zone_id: zone.id,
      area: 12.5,
    });
    assert.deepEqual((await c.get(`/api/parcels?farm_id=${farmB}`)).body, []);
    const noFarm = await c.post('/api/parcels', { json: { name: 'x' } });
    assert.deepEqual(invalidFields(noFarm.body), ['farm_id']);
    const badRefs = await c.post('/api/parcels', { json: { name: 'x', farm_id: 999999, zone_id: 999999 } });
    assert.deepEqual(invalidFields(badRefs.body), ['farm_id', 'zone_id']);
    const clear = await c.put(`/api/zones/${zone.id}`, { json: { farm_id: null } });
    assert.deepEqual(invalidFields(clear.body), ['farm_id']);
  });

  it('refuses to delete a place that still holds others, saying what is left', async () => {
    const farm = (await c.post('/api/farms', { json: { name: 'Full farm' } })).body[0].id;
    const block = (await c.post('/api/blocks', { json: { name: 'B', farm_id: farm } })).body[0].id;
    const zone = (await c.post('/api/zones', { json: { name: 'Z', farm_id: farm } })).body[0].id;
    const parcel = (
      await c.post('/api/parcels', { json: { name: 'P', farm_id: farm, block_id: block, zone_id: zone } })
    ).body[0].id;

    const farmRefused = await c.delete(`/api/farms/${farm}`);
    assert.equal(farmRefused.status, 409);
    assert.equal(
      farmRefused.body[0].meta.message,
      'This farm still holds blocks (1), zones (1) and parcels (1): move them to another farm or delete them first',
    );
    const inVietnamese = await c.delete(`/api/farms/${farm}`, { headers: { 'accept-language': 'vi' } });
    assert.match(inVietnamese.body[0].meta.message, /^Trang trại này vẫn còn lô \(1\)/);
    const blockRefused = await c.delete(`/api/blocks/${block}`);
    assert.equal(blockRefused.status, 409);
    assert.match(blockRefused.body[0].meta.message, /parcels \(1\)/);
    assert.equal((await c.delete(`/api/zones/${zone}`)).status, 409);
    // Nothing was deleted.
    assert.equal((await c.get(`/api/farms/${farm}`)).status, 200);
    assert.equal((await c.get(`/api/zones/${zone}`)).status, 200);

    // Emptied from the inside out, each one goes; a deleted child no longer counts.
    assert.equal((await c.delete(`/api/parcels/${parcel}`)).status, 200);
    assert.equal((await c.delete(`/api/blocks/${block}`)).status, 200);
    assert.equal((await c.delete(`/api/zones/${zone}`)).status, 200);
    assert.equal((await c.delete(`/api/farms/${farm}`)).status, 200);
    assert.equal((await c.delete(`/api/farms/${farm}`)).status, 404);
  });

  it('lets staff read places and only owners change them', async () => {
    const farm = (await c.post('/api/farms', { json: { name: 'Staff farm' } })).body[0].id;
    const block = (await c.post('/api/blocks', { json: { name: 'SB', farm_id: farm } })).body[0].id;
    const staff = client(t.url, await loginToken(t.url, tenant.code, await makeUser(t.database.db, tenant)));
    assert.equal((await staff.get(`/api/blocks?farm_id=${farm}`)).body.length, 1);
    assert.equal((await staff.get(`/api/farms/${farm}`)).status, 200);
    assert.equal((await staff.post('/api/farms', { json: { name: 'Mine' } })).status, 403);
    assert.equal((await staff.put(`/api/blocks/${block}`, { json: { name: 'Mine' } })).status, 403);
    assert.equal((await staff.post('/api/parcels', { json: { name: 'P', farm_id: farm } })).status, 403);
    assert.equal((await staff.delete(`/api/blocks/${block}`)).status, 403);
    assert.equal((await staff.delete(`/api/zones/${block}`)).status, 403);
    assert.equal((await c.get(`/api/blocks/${block}`)).body[0].name, 'SB');
  });
});
