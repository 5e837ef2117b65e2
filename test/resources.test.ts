// The conventions every resource shares, checked on each of them: create (201, Location, array of
// one or {data}), list (plain array, X-Total-Count, Link, paging from 0), detail in both path forms,
// update (confirmation, or the record with Prefer), validation listing every bad field, soft delete,
// and tenant isolation (another tenant's record is a 404 and absent from lists).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant } from './support/factories.js';
import { inlineSchemas } from './support/openapi.js';
import {
  assertErrorShape,
  type Client,
  FIELDS,
  type Graph,
  invalidFields,
  keys,
  seedGraph,
} from './support/resources.js';

interface ResourceCase {
  path: string;
  glued?: boolean;
  envelope?: 'data';
  listFields: string[];
  detailFields: string[];
  create(g: Graph): Record<string, unknown>;
  /** A change and the field it shows in the answer; absent: PUT answers 405. */
  update?: { body: Record<string, unknown>; field: string; value: unknown };
  invalid: { body: Record<string, unknown>; fields: string[] };
}

const CASES: ResourceCase[] = [
  {
    path: '/api/crop/crop',
    listFields: FIELDS.cropList,
    detailFields: FIELDS.cropDetail,
    create: (g) => ({ name: 'Tomato', crop_type: g.cropType, category_id: g.category, price: 5, status: 1 }),
    update: { body: { name: 'Renamed' }, field: 'name', value: 'Renamed' },
    invalid: {
      body: { name: '', price: 'cheap', status: 'maybe', crop_type: 999999 },
      fields: ['name', 'price', 'status'],
    },
  },
  {
    path: '/api/croptype/croptype',
    listFields: FIELDS.cropType,
    detailFields: FIELDS.cropType,
    create: () => ({ name: 'Roma' }),
    update: { body: { description: 'Plum tomato' }, field: 'description', value: 'Plum tomato' },
    invalid: { body: { name: {}, parent_id: 'x', images: [] }, fields: ['images', 'name', 'parent_id'] },
  },
  {
    path: '/api/productcategory/productcategory',
    listFields: FIELDS.category,
    detailFields: FIELDS.category,
    create: () => ({ name: 'Fruit', code: 'FR', status: 1 }),
    update: { body: { status: 0 }, field: 'status', value: 0 },
    invalid: { body: { status: 2, code: {} }, fields: ['code', 'name', 'status'] },
  },
  {
    path: '/api/diary/production',
    listFields: FIELDS.task,
    detailFields: FIELDS.task,
    create: (g) => ({ name: 'Weeding', start: '2026-04-01 08:00:00', season_id: g.season }),
    update: { body: { location: 'Field 2' }, field: 'location', value: 'Field 2' },
    invalid: {
      body: { start: 'tomorrow', sub_cates: 'x', amount: -1 },
      fields: ['amount', 'name', 'start', 'sub_cates.0'],
    },
  },
  {
    path: '/api/crop/season',
    glued: true,
    listFields: FIELDS.seasonList,
    detailFields: FIELDS.seasonDetail,
    create: (g) => ({ name: 'Autumn', crop_id: g.crop, code: '' }),
    update: { body: { status: 'Running' }, field: 'status', value: 'Running' },
    invalid: {
      body: { start_date: '03/01/2026', manufacturers: {} },
      fields: ['crop_id', 'manufacturers', 'name', 'start_date'],
    },
  },
  {
    path: '/api/template/season',
    glued: true,
    envelope: 'data',
    listFields: FIELDS.template,
    detailFields: FIELDS.template,
    create: (g) => ({ name: 'Greenhouse plan', crop_id: g.crop }),
    invalid: {
      body: { description: {}, order: 'first' },
      fields: ['crop_id', 'description', 'name', 'order'],
    },
  },
  {
    path: '/api/farms',
    listFields: FIELDS.farm,
    detailFields: FIELDS.farm,
    create: () => ({ name: 'Hill farm', lat: '11.94', lng: 108.45 }),
    update: { body: { address: 'Da Lat' }, field: 'address', value: 'Da Lat' },
    invalid: { body: { published: 'yes', order: 1.5 }, fields: ['name', 'order', 'published'] },
  },
  {
    path: '/api/blocks',
    listFields: FIELDS.block,
    detailFields: FIELDS.block,
    create: (g) => ({ name: 'East block', farm_id: g.farm }),
    update: { body: { name: 'West block' }, field: 'name', value: 'West block' },
    invalid: { body: { farm_id: 'farm' }, fields: ['farm_id', 'name'] },
  },
  {
    path: '/api/zones',
    listFields: FIELDS.block,
    detailFields: FIELDS.block,
    create: (g) => ({ name: 'Nursery', farm_id: g.farm }),
    update: { body: { name: 'Nursery 2' }, field: 'name', value: 'Nursery 2' },
    invalid: { body: { name: [], farm_id: -1 }, fields: ['farm_id', 'name'] },
  },
  {
    path: '/api/parcels',
    listFields: FIELDS.parcel,
    detailFields: FIELDS.parcel,
    create: (g) => ({ name: 'C3', farm_id: g.farm, zone_id: g.zone, area: 250.5 }),
    update: { body: { area: 300 }, field: 'area', value: 300 },
    invalid: { body: { area: 'big', zone_id: 'z' }, fields: ['area', 'farm_id', 'name', 'zone_id'] },
  },
  {
    path: '/api/diary/categories',
    listFields: FIELDS.diaryCategory,
    detailFields: FIELDS.diaryCategory,
    create: () => ({ name: 'Pruning' }),
    update: { body: { name: 'Pruning and tying' }, field: 'name', value: 'Pruning and tying' },
    invalid: { body: { name: '' }, fields: ['name'] },
  },
  {
    path: '/api/diary/subcategories',
    listFields: FIELDS.subcategory,
    detailFields: FIELDS.subcategory,
    create: (g) => ({ name: 'Tying', category_task_id: g.diaryCategory }),
    update: { body: { name: 'Tying up' }, field: 'name', value: 'Tying up' },
    invalid: { body: { category_task_id: 'c' }, fields: ['category_task_id', 'name'] },
  },
  {
    path: '/api/users',
    listFields: FIELDS.user,
    detailFields: FIELDS.user,
    create: () => ({ username: `worker${Math.floor(Math.random() * 1e9)}`, password: 'a-long-password' }),
    update: { body: { firstname: 'Binh' }, field: 'firstname', value: 'Binh' },
    invalid: { body: { role: 'admin', username: {} }, fields: ['password', 'role', 'username'] },
  },
];

forEachDialect('resource conventions', (database) => {
  let t: TestApp;
  let a: Client;
  let b: Client;
  let graph: Graph;

  before(async () => {
    t = await startTestApp(database.url);
    const farmA = await makeTenant(t.database.db);
    const farmB = await makeTenant(t.database.db);
    a = client(t.url, await loginToken(t.url, farmA.code, farmA.owner));
    b = client(t.url, await loginToken(t.url, farmB.code, farmB.owner));
    graph = await seedGraph(a);
    await seedGraph(b);
  });
  after(() => t.close());

  for (const rc of CASES) {
    const detailOf = (body: any) => (rc.envelope === 'data' ? body.data : body[0]);

    it(`${rc.path}: create, list, detail, update, delete with the spec's shapes`, async () => {
      // Create: 201, Location, array of one (templates: {data}); a client-sent id is ignored.
      const created = await a.post(rc.path, { json: { ...rc.create(graph), id: 424242 } });
      assert.equal(created.status, 201, created.text);
      if (rc.envelope === 'data') assert.deepEqual(Object.keys(created.body), ['data']);
      else assert.equal(created.body.length, 1);
      const record = detailOf(created.body);
      assert.notEqual(record.id, 424242);
      assert.equal(created.headers.get('location'), `${rc.path}/${record.id}`);
      assert.deepEqual(keys(record), rc.detailFields);

      // List: a plain array in the list form, with X-Total-Count and Link.
      const list = await a.get(`${rc.path}?pageLimit=1000`);
      assert.equal(list.status, 200);
      assert.ok(Array.isArray(list.body));
      const total = Number(list.headers.get('x-total-count'));
      assert.equal(total, list.body.length);
      const listed = list.body.find((r: { id: number }) => r.id === record.id);
      assert.ok(listed, 'the new record is listed');
      assert.deepEqual(keys(listed), rc.listFields);
      assert.match(list.headers.get('link') ?? '', /rel="first".*rel="last"/);

      // Paging: page 0 is the first page, an empty page past the end.
      const first = await a.get(`${rc.path}?page=0&pageLimit=1`);
      assert.equal(first.body.length, 1);
      assert.equal(first.body[0].id, list.body[0].id);
      if (total > 1) {
        assert.match(first.headers.get('link') ?? '', /page=1&pageLimit=1>; rel="next"/);
        const second = await a.get(`${rc.path}?page=1&pageLimit=1`);
        assert.equal(second.body[0].id, list.body[1].id);
      }
      const past = await a.get(`${rc.path}?page=${total + 5}&pageLimit=1`);
      assert.equal(past.status, 200);
      assert.deepEqual(past.body, []);
      assert.equal(past.headers.get('x-total-count'), String(total));

      // Detail in both path forms.
      const detail = await a.get(`${rc.path}/${record.id}`);
      assert.equal(detail.status, 200);
      assert.deepEqual(detailOf(detail.body), record);
      if (rc.glued) assert.deepEqual((await a.get(`${rc.path}${record.id}`)).body, detail.body);

      // Update: confirmation by default, the record with Prefer: return=representation.
      if (rc.update) {
        const confirmed = await a.put(`${rc.path}/${record.id}`, { json: rc.update.body });
        assert.equal(confirmed.status, 200, confirmed.text);
        assert.deepEqual(confirmed.body, [{ status_code: 0, message: 'Updated successfully' }]);
        const represented = await a.put(`${rc.glued ? rc.path : `${rc.path}/`}${record.id}`, {
          json: rc.update.body,
          headers: { prefer: 'return=representation' },
        });
        assert.equal(represented.status, 200);
        assert.equal(represented.headers.get('preference-applied'), 'return=representation');
        assert.equal(represented.body.length, 1);
        assert.deepEqual(keys(represented.body[0]), rc.detailFields);
        assert.deepEqual(represented.body[0][rc.update.field], rc.update.value);
        // Fields not sent stay as they were.
        for (const field of rc.detailFields) {
          if (field !== rc.update.field && field !== 'block' && field !== 'farm')
            assert.deepEqual(represented.body[0][field], record[field], field);
        }
      } else {
        const refused = await a.put(`${rc.path}/${record.id}`, { json: { name: 'x' } });
        assert.equal(refused.status, 405);
        assertErrorShape(refused.body, 405);
        assert.equal(refused.headers.get('allow'), 'GET, DELETE');
        assert.equal((await a.put(`${rc.path}${record.id}`, { json: {} })).status, 405);
      }

      // Another tenant: 404 on read, update and delete; absent from its list; nothing changed.
      const beforeOther = await a.get(`${rc.path}/${record.id}`);
      assertErrorShape((await b.get(`${rc.path}/${record.id}`)).body, 404);
      if (rc.update) {
        const res = await b.put(`${rc.path}/${record.id}`, { json: rc.update.body });
        assert.equal(res.status, 404);
      }
      assert.equal((await b.delete(`${rc.path}/${record.id}`)).status, 404);
      const otherList = await b.get(`${rc.path}?pageLimit=1000`);
      assert.ok(!otherList.body.some((r: { name?: string }) => r.name === record.name));
      assert.ok(!otherList.body.some((r: { id: number }) => r.id === record.id));
      assert.deepEqual((await a.get(`${rc.path}/${record.id}`)).body, beforeOther.body);

      // Soft delete: a confirmation; then gone from detail and list; a second delete is a 404.
      const deleted = await a.delete(`${rc.path}/${record.id}`);
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body, [{ status_code: 0, message: 'Deleted successfully' }]);
      assert.equal((await a.get(`${rc.path}/${record.id}`)).status, 404);
      const after = await a.get(`${rc.path}?pageLimit=1000`);
      assert.ok(!after.body.some((r: { id: number }) => r.id === record.id));
      assert.equal(Number(after.headers.get('x-total-count')), total - 1);
      assert.equal((await a.delete(`${rc.path}/${record.id}`)).status, 404);
      if (rc.update)
        assert.equal((await a.put(`${rc.path}/${record.id}`, { json: rc.update.body })).status, 404);
    });

    it(`${rc.path}: 422 lists every bad field, JSON or form-encoded, and writes nothing`, async () => {
      const before = Number((await a.get(rc.path)).headers.get('x-total-count'));
      const res = await a.post(rc.path, { json: rc.invalid.body });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(invalidFields(res.body), rc.invalid.fields);
      const notObject = await a.post(rc.path, { json: [1, 2] });
      assert.equal(notObject.status, 422);
      const empty = await a.post(rc.path, { form: '' });
      assert.equal(empty.status, 422);
      assert.equal(Number((await a.get(rc.path)).headers.get('x-total-count')), before);
      // Page limits: above 1000 or below 1 is a 422; a negative page too.
      for (const query of ['pageLimit=1001', 'pageLimit=0', 'page=-1', 'page=abc']) {
        const bad = await a.get(`${rc.path}?${query}`);
        assert.equal(bad.status, 422, query);
        assertErrorShape(bad.body, 422);
      }
      // A malformed or unknown id names no record.
      assert.equal((await a.get(`${rc.path}/abc`)).status, 404);
      assert.equal((await a.get(`${rc.path}/99999999999`)).status, 404);
      assert.equal((await a.get(`${rc.path}/2147483647`)).status, 404);
    });
  }

  it('the OpenAPI document describes every endpoint and both crop forms', async () => {
    const doc = inlineSchemas((await a.get('/openapi.json')).body);
    for (const rc of CASES) {
      const collection = doc.paths[rc.path];
      assert.ok(collection?.get && collection.post, rc.path);
      const detailPaths = [`${rc.path}/{id}`, ...(rc.glued ? [`${rc.path}{id}`] : [])];
      for (const path of detailPaths) {
        const detail = doc.paths[path];
        assert.ok(detail?.get && detail.delete, path);
        assert.equal(Boolean(detail.put), Boolean(rc.update), path);
      }
    }
    const schemaOf = (op: any, status: string) => op.responses[status].content['application/json'].schema;
    const listItem = schemaOf(doc.paths['/api/crop/crop'].get, '200').items;
    assert.ok(listItem.properties.image && !listItem.properties.images);
    const created = schemaOf(doc.paths['/api/crop/crop'].post, '201').items;
    assert.ok(created.properties.images && created.properties.full_description && !created.properties.image);
    assert.ok(
      doc.paths['/api/diary/production'].get.parameters.some((p: { name: string }) => p.name === 'strSearch'),
    );
  });

  it('accepts ?token=, and Link headers never carry it', async () => {
    const farm = await makeTenant(t.database.db);
    const raw = await loginToken(t.url, farm.code, farm.owner);
    const res = await fetch(`${t.url}/api/crop/crop?token=${raw}&search[name]=x&pageLimit=5`);
    assert.equal(res.status, 200);
    const link = res.headers.get('link') ?? '';
    assert.match(link, /search%5Bname%5D=x/);
    assert.doesNotMatch(link, /token/);
    // Nor under another key: `??token=` parses as the key `?token`, and a token sent as a value of
    // any other parameter stays out of the links too.
    for (const query of [`?token=${raw}`, `note=${raw}`, `search[name]=${raw}`]) {
      const odd = await fetch(`${t.url}/api/crop/crop?${query}&pageLimit=5`, {
        headers: { authorization: `Bearer ${raw}` },
      });
      assert.equal(odd.status, 200, query);
      assert.doesNotMatch(odd.headers.get('link') ?? '', new RegExp(raw), query);
    }
  });

  it('form-encoded creates work like JSON ones', async () => {
    const res = await a.post('/api/crop/crop', {
      form: `name=Form+crop&status=0&price=12&crop_type=${graph.cropType}&images[]=a.jpg&images[]=b.jpg&category_id_=${graph.category}`,
    });
    assert.equal(res.status, 201, res.text);
    const [crop] = res.body;
    assert.equal(crop.status, false);
    assert.equal(crop.price, 12);
    assert.equal(crop.crop_type, graph.cropType);
    assert.equal(crop.category_id, graph.category);
    assert.equal(crop.images, '["a.jpg","b.jpg"]');
  });

  it('references of another tenant are a 422 naming the field', async () => {
    const other = await seedGraph(b);
    const crop = await a.post('/api/crop/crop', {
      json: { name: 'x', crop_type: other.cropType, category_id: other.category },
    });
    assert.equal(crop.status, 422, crop.text);
    assert.deepEqual(invalidFields(crop.body), ['category_id', 'crop_type']);
    // b's ids exist in the database, but not in a's tenant
    const season = await a.post('/api/crop/season', {
      json: { name: 'x', crop_id: other.crop, farm_id: other.farm, block_id: other.block },
    });
    assert.equal(season.status, 422);
    assert.deepEqual(invalidFields(season.body), ['block_id', 'crop_id', 'farm_id']);
  });
});
