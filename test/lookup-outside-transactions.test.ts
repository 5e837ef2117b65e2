// A change that looks up a receiving host's addresses (a webhook URL, an MQTT broker) does so before
// its If-Match transaction: while the lookup waits, the other requests' writes go on. On SQLite,
// where transactions share one connection and their commits, a lookup inside would hold back every
// write of the process until it answered.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant } from './support/factories.js';

/** A resolver whose `slow.example` answers only when released; every other name is public. */
function heldResolver() {
  let release: () => void = () => {};
  let asked: () => void = () => {};
  const askedOnce = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const resolver = async (host: string) => {
    if (host.startsWith('slow')) {
      asked();
      await gate;
    }
    return ['93.184.215.14'];
  };
  return { resolver, askedOnce, release: () => release() };
}

forEachDialect('host lookups outside transactions', (database) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let held = heldResolver();

  before(async () => {
    t = await startTestApp(database.url, { resolver: (host) => held.resolver(host) });
    const farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
  });
  after(() => t.close());

  /** Starts `change`, waits until it is looking up slow.example, then writes and reads meanwhile. */
  const writesWhileLookingUp = async (change: () => Promise<{ status: number; text: string }>) => {
    held = heldResolver();
    const changing = change();
    await held.askedOnce;
    const made = await Promise.race([
      owner.post('/api/productcategory/productcategory', { json: { name: 'Made meanwhile' } }),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 3_000)),
    ]);
    held.release();
    const changed = await changing;
    assert.equal(changed.status, 200, changed.text);
    assert.ok(made, 'a create answered while the lookup waited');
    assert.equal(made.status, 201, made.text);
  };

  it('changes a webhook URL under If-Match without holding other writes', async () => {
    const created = await owner.post('/api/webhooks', {
      json: { url: 'https://fast.example/hook', events: ['harvest.batch.created'] },
    });
    assert.equal(created.status, 201, created.text);
    const path = `/api/webhooks/${created.body.data.id}`;
    const tag = (await owner.get(path)).headers.get('etag')!;
    await writesWhileLookingUp(() =>
      owner.put(path, { json: { url: 'https://slow.example/hook' }, headers: { 'if-match': tag } }),
    );
    assert.equal((await owner.get(path)).body.data.url, 'https://slow.example/hook');
  });

  it('changes an MQTT broker URL under If-Match without holding other writes', async () => {
    const created = await owner.post('/api/iot/mqtt-sources', {
      json: {
        name: 'Barn broker',
        url: 'mqtt://fast.example:1883',
        topics: ['farm/#'],
        format: 'chirpstack',
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body[0].id;
    const path = `/api/iot/mqtt-sources/${id}`;
    const tag = (await owner.get(path)).headers.get('etag')!;
    await writesWhileLookingUp(() =>
      owner.put(path, { json: { url: 'mqtt://slow.example:1883' }, headers: { 'if-match': tag } }),
    );
  });
});
