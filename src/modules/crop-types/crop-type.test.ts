import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant } from '../../../test/support/factories.js';
import { type Client, invalidFields } from '../../../test/support/resources.js';

forEachDialect('crop types', (database) => {
  let t: TestApp;
  let c: Client;

  before(async () => {
    t = await startTestApp(database.url);
    const farm = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, farm.code, farm.owner));
  });
  after(() => t.close());

  it('parent_id is 0 when there is none; parent-id (a string) is accepted', async () => {
    const root = (await c.post('/api/croptype/croptype', { json: { name: 'Fruit', images: null } })).body[0];
    assert.deepEqual(root, { id: root.id, name: 'Fruit', description: '', parent_id: 0, images: null });
    const child = await c.post('/api/croptype/croptype', {
      form: `name=Mango&parent-id=${root.id}&images=http%3A%2F%2Fimg%2Fm.png&description=Sweet`,
    });
    assert.equal(child.status, 201);
    assert.equal(child.body[0].parent_id, root.id);
    assert.equal(child.body[0].images, 'http://img/m.png');
    // Sending back the 0 the service answered means "no parent".
    const cleared = await c.put(`/api/croptype/croptype/${child.body[0].id}`, {
      json: { parent_id: 0 },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(cleared.body[0].parent_id, 0);
    assert.equal(cleared.body[0].description, 'Sweet');
  });

  it('refuses an unknown parent and a parent cycle', async () => {
    const unknown = await c.post('/api/croptype/croptype', { json: { name: 'x', parent_id: 999999 } });
    assert.deepEqual(invalidFields(unknown.body), ['parent_id']);
    const a = (await c.post('/api/croptype/croptype', { json: { name: 'A' } })).body[0];
    const b = (await c.post('/api/croptype/croptype', { json: { name: 'B', parent_id: a.id } })).body[0];
    const cycle = await c.put(`/api/croptype/croptype/${a.id}`, { json: { parent_id: b.id } });
    assert.deepEqual(invalidFields(cycle.body), ['parent_id']);
    const self = await c.put(`/api/croptype/croptype/${a.id}`, { json: { 'parent-id': String(a.id) } });
    assert.deepEqual(invalidFields(self.body), ['parent_id']);
  });
});
