// Endpoints answer their newest delivery in a line (`last_delivery`), read for the whole list in
// one statement: a list of endpoints never pulls each endpoint's log.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Kysely } from 'kysely';
import { client } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant } from '../../../test/support/factories.js';
import { inlineSchemas } from '../../../test/support/openapi.js';
import { webhookFixture } from '../../../test/support/webhook-fixture.js';
import type { Database } from '../../platform/db/types.js';
import { listWebhookEndpoints } from './webhook.service.js';

forEachDialect('last delivery of webhook endpoints', (database) => {
  const f = webhookFixture(database);
  let otherOwner: ReturnType<typeof client>;
  before(async () => {
    const other = await makeTenant(f.t.database.db);
    otherOwner = client(f.t.url, await loginToken(f.t.url, other.code, other.owner));
  });

  const listed = async (epId: string) => {
    const res = await f.owner.get('/api/webhooks');
    assert.equal(res.status, 200, res.text);
    return res.body.find((e: { id: string }) => e.id === epId);
  };

  it('is null until the endpoint has a delivery', async () => {
    const ep = await f.endpoint();
    assert.equal((await listed(ep.id)).last_delivery, null);
    assert.equal((await f.getEndpoint(ep.id)).last_delivery, null);
  });

  it('shows a queued delivery, then its attempt and the receiver’s status', async () => {
    const ep = await f.endpoint();
    const [id] = await f.emit('harvest.batch.created', { harvest_record_id: 1 });
    const queued = {
      id,
      event_type: 'harvest.batch.created',
      status: 'pending',
      created_at: new Date(f.t.clock.now()).toISOString(),
      attempted_at: null,
      response_status: null,
    };
    assert.deepEqual((await listed(ep.id)).last_delivery, queued);
    f.t.clock.advance(2000);
    assert.equal(await f.worker.drain(), 1);
    const sent = { ...queued, status: 'succeeded', attempted_at: new Date(f.t.clock.now()).toISOString() };
    assert.deepEqual((await listed(ep.id)).last_delivery, { ...sent, response_status: 200 });
    assert.deepEqual((await f.getEndpoint(ep.id)).last_delivery, { ...sent, response_status: 200 });
    // The same line as the first entry of the endpoint's log.
    const [first] = await f.deliveries(ep.id);
    assert.equal(first.id, id);
    assert.equal(first.attempts.at(-1).started_at, sent.attempted_at);
  });

  it('answers the latest attempt: a 503 to retry, no status when the connection drops', async () => {
    const ep = await f.endpoint((_req, n) => (n === 0 ? { status: 503 } : { close: true }));
    await f.emit('iot.alert.raised', { alert_id: 7 });
    await f.worker.drain();
    let last = (await listed(ep.id)).last_delivery;
    assert.equal(last.status, 'retrying');
    assert.equal(last.response_status, 503);
    f.t.clock.advance(1000);
    await f.worker.drain();
    last = (await listed(ep.id)).last_delivery;
    assert.equal(last.status, 'retrying');
    assert.equal(last.response_status, null);
    assert.equal(last.attempted_at, new Date(f.t.clock.now()).toISOString());
  });

  it('is the newest delivery, test messages included, for each endpoint of the list', async () => {
    const a = await f.endpoint();
    const b = await f.endpoint(undefined, ['iot.device.offline']);
    await f.emit('harvest.batch.created', { harvest_record_id: 2 });
    await f.emit('iot.device.offline', { device_id: 3 });
    const [offline] = await f.deliveries(b.id);
    const test = await f.owner.post(`/api/webhooks/${a.id}/test`);
    assert.equal(test.status, 202, test.text);
    const list = (await f.owner.get('/api/webhooks')).body;
    const byId = new Map(list.map((e: { id: string; last_delivery: unknown }) => [e.id, e.last_delivery]));
    assert.equal((byId.get(a.id) as { id: string }).id, test.body.data.id);
    assert.equal((byId.get(a.id) as { event_type: string }).event_type, 'webhook.test');
    assert.equal((byId.get(b.id) as { id: string }).id, offline.id);
  });

  it('reads the whole list in the same few statements, whatever the number of endpoints', async () => {
    const statements = async () => {
      let count = 0;
      // Counted on results: a plugin's transformQuery also sees every subquery as it is built.
      const db = (f.t.database.db as Kysely<Database>).withPlugin({
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          count += 1;
          return args.result;
        },
      });
      const endpoints = await listWebhookEndpoints({ db, tenantId: f.farm.id }, f.t.clock.now());
      return { count, endpoints: endpoints.length };
    };
    const one = await f.endpoint();
    await f.emit('harvest.batch.created', { harvest_record_id: 3 });
    const few = await statements();
    for (let i = 0; i < 5; i++) await f.endpoint();
    await f.emit('harvest.batch.created', { harvest_record_id: 4 });
    const more = await statements();
    assert.equal(few.endpoints, 1);
    assert.equal(more.endpoints, 6);
    assert.equal(more.count, few.count);
    assert.equal(few.count, 3, 'the endpoints, their held counts, their last deliveries');
    assert.ok((await listed(one.id)).last_delivery);
  });

  it('never shows another tenant’s deliveries', async () => {
    const ours = await f.endpoint();
    await f.emit('harvest.batch.created', { harvest_record_id: 5 });
    const theirs = await otherOwner.post('/api/webhooks', {
      json: { url: `${f.receiver.origin}/other-tenant`, events: ['*'] },
    });
    assert.equal(theirs.status, 201, theirs.text);
    const list = (await otherOwner.get('/api/webhooks')).body;
    assert.deepEqual(
      list.map((e: { id: string; last_delivery: unknown }) => [e.id, e.last_delivery]),
      [[theirs.body.data.id, null]],
    );
    assert.equal((await otherOwner.get(`/api/webhooks/${ours.id}`)).status, 404);
    assert.ok((await listed(ours.id)).last_delivery);
  });

  it('is documented in OpenAPI', async () => {
    const doc = inlineSchemas((await client(f.t.url).get('/openapi.json')).body);
    const item = doc.paths['/api/webhooks'].get.responses['200'].content['application/json'].schema.items;
    const text = JSON.stringify(item);
    for (const field of ['last_delivery', 'attempted_at', 'response_status'])
      assert.ok(text.includes(field), field);
  });
});
