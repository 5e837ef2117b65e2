import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant } from '../../../test/support/factories.js';
import {
  type Client,
  FIELDS,
  type Graph,
  invalidFields,
  keys,
  seedGraph,
} from '../../../test/support/resources.js';

// The create example of the specification (4.6), with the ids of this tenant.
const specExample = (g: Graph) => ({
  block_id: g.block,
  code: '',
  crop_id: g.crop,
  end_date: '2026-06-30',
  farm_id: g.farm,
  full_description: '<p>Spring</p>',
  images: '[]',
  manufacturers: [],
  name: 'Spring 2026',
  promotion_info: '',
  season_custom_field1: 'a',
  season_custom_field2: 'b',
  season_custom_field3: 'c',
  season_custom_field4: 'd',
  season_template_id: g.template,
  start_date: '2026-03-01',
  status: 'Pending',
  vendors: [],
  warning_info: '',
});

forEachDialect('seasons', (database) => {
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

  it('creates from the spec example: detail form with crop, farm, block and every default', async () => {
    const res = await c.post('/api/crop/season', { json: specExample(g) });
    assert.equal(res.status, 201, res.text);
    const [season] = res.body;
    assert.deepEqual(keys(season), FIELDS.seasonDetail);
    assert.match(season.code, /^S20260301-[0-9A-Za-z]{6}$/);
    assert.equal(season.status, 'Pending');
    assert.deepEqual(season.crop, { id: g.crop, name: 'Seed crop', code: 'SEED' });
    assert.deepEqual(season.block, { id: g.block, name: 'Seed block' });
    assert.deepEqual(keys(season.farm), FIELDS.farm);
    assert.equal(season.farm.id, g.farm);
    assert.equal(season.template_name, 'Seed template');
    for (const field of ['amount', 'area', 'count_temp', 'temp_from', 'temp_to'])
      assert.equal(season[field], 0, field);
    assert.equal(season.images, '[]');
    assert.deepEqual(season.manufacturers, []);
    assert.deepEqual(season.vendors, []);
    assert.equal(season.attach_files, null);
    assert.equal(season.product_id, null);
    assert.equal(season.note_private, null);
    assert.equal(season.season_custom_field5, null);

    const [listed] = (await c.get('/api/crop/season?search[]=spring 2026')).body;
    assert.deepEqual(keys(listed), FIELDS.seasonList);
    assert.equal(listed.crop_code, 'SEED');
    assert.equal(listed.crop_name, 'Seed crop');
    assert.equal(listed.crop, undefined);
    // Detail in both path forms: array of one.
    const slash = await c.get(`/api/crop/season/${season.id}`);
    const glued = await c.get(`/api/crop/season${season.id}`);
    assert.deepEqual(slash.body, [season]);
    assert.deepEqual(glued.body, [season]);
  });

  it('generates a unique code per season and refuses a code already in use', async () => {
    const codes = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await c.post('/api/crop/season', { json: { name: `S${i}`, crop_id: g.crop } });
      codes.add(res.body[0].code);
      assert.equal(res.body[0].status, 'Pending');
      assert.equal(res.body[0].farm, null);
      assert.equal(res.body[0].block, null);
    }
    assert.equal(codes.size, 5);
    await c.post('/api/crop/season', { json: { name: 'Own code', crop_id: g.crop, code: 'MY-CODE' } });
    const taken = await c.post('/api/crop/season', {
      json: { name: 'Again', crop_id: g.crop, code: 'MY-CODE' },
    });
    assert.equal(taken.status, 422);
    assert.deepEqual(invalidFields(taken.body), ['code']);
  });

  it('PUT with the update example keeps the other fields; an empty code keeps the current one', async () => {
    const [season] = (await c.post('/api/crop/season', { json: specExample(g) })).body;
    const res = await c.put(`/api/crop/season${season.id}`, {
      json: { code: '', description: 'Updated', note_private: 'secret', status: 'Harvesting' },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(res.status, 200, res.text);
    const [updated] = res.body;
    assert.equal(updated.code, season.code);
    assert.equal(updated.description, 'Updated');
    assert.equal(updated.note_private, 'secret');
    assert.equal(updated.status, 'Harvesting');
    assert.equal(updated.start_date, '2026-03-01');
    assert.deepEqual(updated.farm, season.farm);
    const cleared = await c.put(`/api/crop/season/${season.id}`, {
      json: { note_private: null, farm_id: null, amount: 12 },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(cleared.body[0].note_private, null);
    assert.equal(cleared.body[0].farm, null);
    assert.equal(cleared.body[0].amount, 12);
  });

  it('filters by overlapping dates and searches name and code', async () => {
    const make = async (name: string, start_date: string, end_date: string) =>
      (await c.post('/api/crop/season', { json: { name, crop_id: g.crop, start_date, end_date } })).body[0];
    await make('Overlap winter', '2027-01-01', '2027-02-28');
    await make('Overlap spring', '2027-03-01', '2027-05-31');
    const names = async (query: string) =>
      ((await c.get(`/api/crop/season?${query}&search[]=overlap`)).body as { name: string }[])
        .map((r) => r.name)
        .sort();
    assert.deepEqual(await names('from_date=2027-02-28&to_date=2027-03-01'), [
      'Overlap spring',
      'Overlap winter',
    ]);
    assert.deepEqual(await names('from_date=2027-03-01'), ['Overlap spring']);
    assert.deepEqual(await names('to_date=2027-02-28'), ['Overlap winter']);
    assert.deepEqual(await names('to_date=2027-02-28 23:00:00'), ['Overlap winter']);
    assert.deepEqual(await names('from_date=2027-06-01'), []);
    assert.deepEqual(invalidFields((await c.get('/api/crop/season?to_date=yesterday')).body), ['to_date']);
    const byCode = await c.get('/api/crop/season?search[code]=MY-CO');
    assert.deepEqual(
      byCode.body.map((s: { name: string; code: string }) => [s.name, s.code]),
      [['Own code', 'MY-CODE']],
    );
  });

  it('validates dates, the crop and the order of start and end', async () => {
    const res = await c.post('/api/crop/season', {
      json: { name: 'x', crop_id: g.crop, start_date: '2026-02-30', end_date: '2026-01-01' },
    });
    assert.deepEqual(invalidFields(res.body), ['start_date']);
    const order = await c.post('/api/crop/season', {
      json: { name: 'x', crop_id: g.crop, start_date: '2026-02-01', end_date: '2026-01-01' },
    });
    assert.deepEqual(invalidFields(order.body), ['end_date']);
    const crop = await c.put(`/api/crop/season/${g.season}`, { json: { crop_id: null } });
    assert.deepEqual(invalidFields(crop.body), ['crop_id']);
    const refs = await c.post('/api/crop/season', {
      json: { name: 'x', crop_id: g.crop, season_template_id: 999999, block_id: 999999 },
    });
    assert.deepEqual(invalidFields(refs.body), ['block_id', 'season_template_id']);
  });

  it("filters by crop_id and farm_id; never another tenant's seasons", async () => {
    const crop = (await c.post('/api/crop/crop', { json: { name: 'Filter crop', code: 'FC' } })).body[0].id;
    const farm = (await c.post('/api/farms', { json: { name: 'Filter farm' } })).body[0].id;
    await c.post('/api/crop/season', { json: { name: 'By crop', crop_id: crop } });
    await c.post('/api/crop/season', { json: { name: 'By crop on farm', crop_id: crop, farm_id: farm } });
    await c.post('/api/crop/season', { json: { name: 'On farm', crop_id: g.crop, farm_id: farm } });
    const names = async (query: string) =>
      ((await c.get(`/api/crop/season?${query}`)).body as { name: string }[]).map((r) => r.name).sort();
    assert.deepEqual(await names(`crop_id=${crop}`), ['By crop', 'By crop on farm']);
    assert.deepEqual(await names(`farm_id=${farm}`), ['By crop on farm', 'On farm']);
    assert.deepEqual(await names(`crop_id=${crop}&farm_id=${farm}`), ['By crop on farm']);
    const other = await makeTenant(t.database.db);
    const otherClient = client(t.url, await loginToken(t.url, other.code, other.owner));
    assert.deepEqual(
      ((await otherClient.get(`/api/crop/season?crop_id=${crop}`)).body as unknown[]).length,
      0,
      'another tenant sees none',
    );
    assert.deepEqual(invalidFields((await c.get('/api/crop/season?crop_id=x&farm_id=0')).body), [
      'crop_id',
      'farm_id',
    ]);
  });
});
