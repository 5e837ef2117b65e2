import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant } from '../../../test/support/factories.js';
import { type Client, type Graph, invalidFields, seedGraph } from '../../../test/support/resources.js';

forEachDialect('season templates', (database) => {
  let t: TestApp;
  let c: Client;
  let g: Graph;

  before(async () => {
    t = await startTestApp(database.url);
    const farm = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    g = await seedGraph(c);
  });
  after(() => t.close());

  it('create and detail answer {data}, with crop {id, name} and block {id, name} or null', async () => {
    const res = await c.post('/api/template/season', {
      json: {
        name: 'Plan A',
        crop_id: g.crop,
        description: null,
        block_id: g.block,
        order: 2,
        crop_type: 'Roma',
      },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body, {
      data: {
        id: res.body.data.id,
        name: 'Plan A',
        description: null,
        crop_type: 'Roma',
        crop_id: g.crop,
        crop: { id: g.crop, name: 'Seed crop' },
        order: 2,
        block_id: g.block,
        block: { id: g.block, name: 'Seed block' },
      },
    });
    assert.deepEqual((await c.get(`/api/template/season${res.body.data.id}`)).body, res.body);
    const bare = await c.post('/api/template/season', { json: { name: 'Plan B', crop_id: String(g.crop) } });
    assert.equal(bare.body.data.block, null);
    assert.equal(bare.body.data.order, null);
  });

  it('crop_id is required and must exist; PUT answers 405', async () => {
    assert.deepEqual(invalidFields((await c.post('/api/template/season', { json: { name: 'x' } })).body), [
      'crop_id',
    ]);
    assert.deepEqual(
      invalidFields((await c.post('/api/template/season', { json: { name: 'x', crop_id: 0 } })).body),
      ['crop_id'],
    );
    const put = await c.put(`/api/template/season/${g.template}`, { json: { name: 'y' } });
    assert.equal(put.status, 405);
  });

  it('lists search by name and filter by creation date', async () => {
    const now = t.clock.now();
    await c.post('/api/template/season', { json: { name: 'Winter cabbage', crop_id: g.crop } });
    const names = async (query: string) =>
      ((await c.get(`/api/template/season?${query}`)).body as { name: string }[]).map((r) => r.name);
    assert.deepEqual(await names('search[]=CABBAGE'), ['Winter cabbage']);
    const today = new Date(now).toISOString().slice(0, 10);
    assert.ok((await names(`from_date=${today}&to_date=${today}`)).includes('Winter cabbage'));
    assert.deepEqual(await names('to_date=2000-01-01'), []);
    const bad = await c.get('/api/template/season?from_date=2026-02-30');
    assert.deepEqual(invalidFields(bad.body), ['from_date']);
  });
});
