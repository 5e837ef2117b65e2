// Input an attacker or a broken client sends: non-decimal numbers, infinite pages, NUL characters
// and unpaired surrogates, on every kind of route. Each is a 422 in the error shape naming the
// field (login answers "incorrect"), never a 500, and nothing is written.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, request, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, type TestTenant } from './support/factories.js';
import { assertErrorShape, type Client, type Graph, invalidFields, seedGraph } from './support/resources.js';

const BAD_CREDENTIALS = { meta: { status_code: 1, message: 'The account or password is incorrect' } };

/** Paging values that Number() reads but that are no decimal page: each a 422. */
const BAD_PAGES = ['Infinity', '-Infinity', '1e400', '0x10', '1e2', '0b1', ' 5', '+5', '5.'];

forEachDialect('hostile input', (database) => {
  let t: TestApp;
  let c: Client;
  let farm: TestTenant;
  let g: Graph;
  let listPaths: string[];

  before(async () => {
    t = await startTestApp(database.url);
    farm = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    g = await seedGraph(c);
    // Every list of the API: the GET operations whose path names no record.
    const openapi = (await request(t.url, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
    };
    listPaths = Object.entries(openapi.paths)
      .filter(
        ([path, ops]) => !path.includes('{') && ops.get?.parameters?.some((p) => p.name === 'pageLimit'),
      )
      .map(([path]) => path);
  });
  after(() => t.close());

  it('finds every list of the API', () => {
    assert.ok(listPaths.length >= 17, `lists: ${listPaths.join(', ')}`);
    assert.ok(listPaths.includes('/api/crop/crop'));
    assert.ok(listPaths.includes('/api/iot/alerts'));
  });

  it('refuses page and pageLimit that are not decimal integers on every list', async () => {
    for (const path of listPaths) {
      for (const param of ['page', 'pageLimit']) {
        for (const value of BAD_PAGES) {
          const res = await c.get(`${path}?${param}=${encodeURIComponent(value)}`);
          assert.equal(res.status, 422, `${path}?${param}=${value}: ${res.status} ${res.text}`);
          assert.deepEqual(invalidFields(res.body), [param], `${path}?${param}=${value}`);
        }
      }
      assert.equal((await c.get(`${path}?page=1&pageLimit=5`)).status, 200, path);
    }
  });

  it('reads only decimal numbers in JSON and form bodies', async () => {
    const hex = await c.post('/api/crop/crop', { json: { name: 'Hex', crop_type: '0x1' } });
    assert.deepEqual(invalidFields(hex.body), ['crop_type']);
    const form = await c.post('/api/crop/crop', { form: `name=Hex&crop_type=${encodeURIComponent(' 1')}` });
    assert.deepEqual(invalidFields(form.body), ['crop_type']);
    const decimal = await c.post('/api/crop/crop', { form: `name=Decimal&crop_type=${g.cropType}` });
    assert.equal(decimal.status, 201, decimal.text);
    // An empty form field still reads as "none", as the original clients send it.
    const empty = await c.post('/api/croptype/croptype', { form: 'name=Empty&parent_id=' });
    assert.equal(empty.status, 201, empty.text);
    assert.equal(empty.body[0].parent_id, 0); // "none", as the original service answers it
    // JSON's 1e400 parses as Infinity.
    const infinite = await c.post('/api/harvest/batches', {
      raw: `{"parcel_id":${g.parcel},"crop_type_id":${g.cropType},"quantity_kg":1e400}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual(invalidFields(infinite.body), ['quantity_kg']);
  });

  it('refuses NUL characters and unpaired surrogates in any text, naming the field', async () => {
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/api/crop/crop', { name: 'a\u0000b' }, 'name'],
      ['POST', '/api/crop/crop', { name: 'a\ud800b' }, 'name'],
      ['POST', '/api/crop/crop', { name: 'ok', description: '\udc00' }, 'description'],
      ['PUT', `/api/crop/crop/${g.crop}`, { name: 'x\u0000' }, 'name'],
      ['POST', '/api/iot/devices', { code: 'dev\u0000', name: 'Probe' }, 'code'],
      [
        'POST',
        '/api/iot/readings',
        { readings: [{ device_code: 'd\ud800', metric: 'm', value: 1 }] },
        'readings.0.device_code',
      ],
      [
        'POST',
        '/api/webhooks',
        { url: 'https://example.com/h', events: ['*'], description: 'a\u0000' },
        'description',
      ],
      [
        'POST',
        '/api/harvest/batches',
        { parcel_id: g.parcel, crop_type_id: g.cropType, quantity_kg: 1, notes: '\ud800' },
        'notes',
      ],
    ];
    for (const [method, path, json, field] of cases) {
      const res = await (method === 'POST' ? c.post : c.put)(path, { json });
      assert.equal(res.status, 422, `${method} ${path}: ${res.text}`);
      assert.deepEqual(invalidFields(res.body), [field], `${method} ${path}`);
      const meta = assertErrorShape(res.body, 422);
      assert.match(meta.errors?.[0]?.message ?? '', /NUL characters or unpaired surrogates/);
    }
    const form = await c.post('/api/crop/crop', { form: 'name=a%00b' });
    assert.deepEqual(invalidFields(form.body), ['name']);
    const search = await c.get(`/api/crop/crop?search[name]=${encodeURIComponent('\u0000')}`);
    assert.deepEqual(invalidFields(search.body), ['search.name']);
    const key = await c.post('/api/crop/crop', { json: { name: 'ok', 'x\u0000': 1 } });
    assert.equal(key.status, 422);
    // Nothing of those was stored; the same names in well-formed text are.
    const crops = await c.get('/api/crop/crop?pageLimit=1000');
    assert.ok(!crops.text.includes('\\u0000') && !crops.text.includes('\ufffd'));
    const fine = await c.post('/api/crop/crop', { json: { name: 'Rau cải 🥬' } });
    assert.equal(fine.status, 201);
    assert.equal((await c.get(`/api/crop/crop/${fine.body[0].id}`)).body[0].name, 'Rau cải 🥬');
  });

  it('answers a login with a NUL or an unpaired surrogate as incorrect credentials', async () => {
    for (const body of [
      { tenantcode: `${farm.code}\u0000`, username: 'owner', password: farm.owner.password },
      { tenantcode: farm.code, username: 'owner\u0000', password: farm.owner.password },
      { tenantcode: farm.code, username: 'own\ud800er', password: farm.owner.password },
      { tenantcode: '\udfff', username: '\u0000', password: '\u0000' },
    ]) {
      const res = await request(t.url, 'POST', '/api/auth/login', { json: body });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, BAD_CREDENTIALS);
    }
    const form = await request(t.url, 'POST', '/api/auth/login', {
      form: `tenantcode=${farm.code}%00&username=owner&password=x`,
    });
    assert.deepEqual(form.body, BAD_CREDENTIALS);
  });
});
