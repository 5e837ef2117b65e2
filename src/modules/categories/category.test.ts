import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant } from '../../../test/support/factories.js';
import type { Client } from '../../../test/support/resources.js';

forEachDialect('product categories', (database) => {
  let t: TestApp;
  let c: Client;

  before(async () => {
    t = await startTestApp(database.url);
    const farm = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, farm.code, farm.owner));
  });
  after(() => t.close());

  it('status is an integer in answers; parent_id null when none; parent-id accepted', async () => {
    const root = (
      await c.post('/api/productcategory/productcategory', { json: { name: 'Fruit', status: true } })
    ).body[0];
    assert.deepEqual(root, {
      id: root.id,
      name: 'Fruit',
      code: '',
      description: '',
      status: 1,
      parent_id: null,
    });
    const child = await c.post('/api/productcategory/productcategory', {
      form: `name=Citrus&code=CIT&status=0&parent-id=${root.id}`,
    });
    assert.deepEqual(child.body[0], {
      id: child.body[0].id,
      name: 'Citrus',
      code: 'CIT',
      description: '',
      status: 0,
      parent_id: root.id,
    });
  });

  it('moves between active and inactive with PUT status 1/0', async () => {
    const cat = (await c.post('/api/productcategory/productcategory', { json: { name: 'Herbs' } })).body[0];
    assert.equal(cat.status, 1, 'active by default');
    for (const [status, expected] of [
      ['0', 0],
      [1, 1],
      [false, 0],
      ['true', 1],
    ] as const) {
      const res = await c.put(`/api/productcategory/productcategory/${cat.id}`, {
        json: { status },
        headers: { prefer: 'return=representation' },
      });
      assert.equal(res.body[0].status, expected);
    }
    const listed = (await c.get('/api/productcategory/productcategory?pageLimit=1000')).body;
    assert.equal(listed.find((r: { id: number }) => r.id === cat.id).status, 1);
  });
});
