import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant } from '../../../test/support/factories.js';
import { type Client, type Graph, invalidFields, seedGraph } from '../../../test/support/resources.js';

forEachDialect('crops', (database) => {
  let t: TestApp;
  let c: Client;
  let g: Graph;
  const create = async (json: Record<string, unknown>) => {
    const res = await c.post('/api/crop/crop', { json });
    assert.equal(res.status, 201, res.text);
    return res.body[0];
  };

  before(async () => {
    t = await startTestApp(database.url);
    const farm = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    g = await seedGraph(c);
  });
  after(() => t.close());

  it('answers the spec types: status boolean, location null, images a JSON string, price integer', async () => {
    const crop = await create({
      name: 'Mango',
      description: 'Cat Chu mango',
      location: 'ignored',
      crop_type: String(g.cropType),
      category_id: g.category,
      image: '/img/mango.jpg',
      images: '["/img/mango.jpg","/img/mango-2.jpg"]',
      full_description: '<p>Sweet</p>',
      sku: 'MG-1',
      code: 'MANGO',
      price: '25000',
      status: 'true',
    });
    assert.deepEqual(crop, {
      id: crop.id,
      name: 'Mango',
      description: 'Cat Chu mango',
      location: null,
      crop_type: g.cropType,
      category_id: g.category,
      sku: 'MG-1',
      code: 'MANGO',
      price: 25000,
      status: true,
      images: '["/img/mango.jpg","/img/mango-2.jpg"]',
      full_description: '<p>Sweet</p>',
    });
    const [listed] = (await c.get('/api/crop/crop?search[code]=MANGO')).body;
    assert.equal(listed.image, '/img/mango.jpg');
    assert.equal(listed.images, undefined);
    assert.equal(listed.full_description, undefined);
    // The detail is an array of one, like task and season details.
    const detail = await c.get(`/api/crop/crop/${crop.id}`);
    assert.deepEqual(detail.body, [crop]);
  });

  it('status accepts 1/0, true/false and their strings; category_id_ is category_id', async () => {
    for (const [status, expected] of [
      [1, true],
      [0, false],
      [true, true],
      [false, false],
      ['1', true],
      ['0', false],
      ['false', false],
    ] as const) {
      assert.equal((await create({ name: `s-${status}`, status })).status, expected, String(status));
    }
    const aliased = await create({ name: 'alias', category_id_: g.category });
    assert.equal(aliased.category_id, g.category);
    const images = await create({ name: 'images', images: ['a.jpg'] });
    assert.equal(images.images, '["a.jpg"]');
    const single = await create({ name: 'one image', images: 'b.jpg' });
    assert.equal(single.images, '["b.jpg"]');
  });

  it('PUT changes only the fields sent; null clears a reference; status moves both ways', async () => {
    const crop = await create({ name: 'Durian', crop_type: g.cropType, price: 100, status: 1 });
    const off = await c.put(`/api/crop/crop/${crop.id}`, {
      json: { status: 0, crop_type: null },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(off.body[0].status, false);
    assert.equal(off.body[0].crop_type, null);
    assert.equal(off.body[0].price, 100);
    assert.equal(off.body[0].name, 'Durian');
    const on = await c.put(`/api/crop/crop/${crop.id}`, {
      form: 'status=1',
      headers: { prefer: 'return=representation' },
    });
    assert.equal(on.body[0].status, true);
  });

  it('searches by name, code and SKU (case-insensitive substring) and by exact price', async () => {
    await create({ name: 'Dragon Fruit', code: 'DRG-7', sku: 'ZX-100', price: 777 });
    const names = async (query: string) =>
      ((await c.get(`/api/crop/crop?${query}&pageLimit=1000`)).body as { name: string }[]).map((r) => r.name);
    assert.deepEqual(await names('search[name]=dragon'), ['Dragon Fruit']);
    assert.deepEqual(await names('search[code]=drg-'), ['Dragon Fruit']);
    assert.deepEqual(await names('search[sku]=zx-1'), ['Dragon Fruit']);
    assert.deepEqual(await names('search[price]=777'), ['Dragon Fruit']);
    assert.deepEqual(await names('search[price]=77'), []);
    assert.deepEqual(await names('search[price]=abc'), []);
    assert.deepEqual(await names('search[name]=dragon&search[code]=nope'), []);
    assert.deepEqual(await names('search[]=zx-100'), ['Dragon Fruit']);
    // LIKE wildcards are literal characters
    assert.deepEqual(await names('search[name]=%25'), []);
    assert.deepEqual(await names('search[name]=_'), []);
    const total = (await c.get('/api/crop/crop?search[name]=dragon')).headers.get('x-total-count');
    assert.equal(total, '1');
  });

  it('filters by status, product category and crop type (extensions), with the search', async () => {
    const other = (await c.post('/api/productcategory/productcategory', { json: { name: 'Livestock' } }))
      .body[0].id;
    await create({ name: 'Filter Goat', category_id: other, status: 1 });
    await create({ name: 'Filter Cow', category_id: other, status: 0 });
    await create({ name: 'Filter Lime', category_id: g.category, crop_type: g.cropType, status: 0 });
    const names = async (query: string) =>
      ((await c.get(`/api/crop/crop?search[name]=filter&pageLimit=1000&${query}`)).body as { name: string }[])
        .map((r) => r.name)
        .sort();
    assert.deepEqual(await names('status=1'), ['Filter Goat']);
    assert.deepEqual(await names('status=0'), ['Filter Cow', 'Filter Lime']);
    assert.deepEqual(await names('status=false'), ['Filter Cow', 'Filter Lime']);
    assert.deepEqual(await names('status=true'), ['Filter Goat']);
    assert.deepEqual(await names(`category_id=${other}`), ['Filter Cow', 'Filter Goat']);
    assert.deepEqual(await names(`category_id=${other}&status=0`), ['Filter Cow']);
    assert.deepEqual(await names(`crop_type=${g.cropType}`), ['Filter Lime']);
    const res = await c.get('/api/crop/crop?search[name]=filter&status=1');
    assert.equal(res.headers.get('x-total-count'), '1');
    const bad = await c.get('/api/crop/crop?status=maybe&category_id=0&crop_type=x');
    assert.equal(bad.status, 422);
    assert.deepEqual(invalidFields(bad.body), ['category_id', 'crop_type', 'status']);
  });

  it('refuses unknown references and wrong types, naming each field', async () => {
    const res = await c.post('/api/crop/crop', {
      json: { name: 'x', crop_type: 987654, category_id: 987654 },
    });
    assert.deepEqual(invalidFields(res.body), ['category_id', 'crop_type']);
    const types = await c.post('/api/crop/crop', {
      json: { name: { x: 1 }, price: 1.5, status: 'on', images: { a: 1 }, crop_type: 'abc' },
    });
    assert.deepEqual(invalidFields(types.body), ['crop_type', 'images', 'name', 'price', 'status']);
  });

  it('a soft-deleted crop type cannot be referenced', async () => {
    const type = await c.post('/api/croptype/croptype', { json: { name: 'Gone' } });
    await c.delete(`/api/croptype/croptype/${type.body[0].id}`);
    const res = await c.post('/api/crop/crop', { json: { name: 'x', crop_type: type.body[0].id } });
    assert.deepEqual(invalidFields(res.body), ['crop_type']);
  });
});
