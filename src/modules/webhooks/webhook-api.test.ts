// The management API: owner-only, tenant-isolated, secrets shown once and encrypted at rest.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { addressVectors } from '../../../test/support/vectors.js';

forEachDialect('webhook management API', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let owner: ReturnType<typeof client>;
  let staff: ReturnType<typeof client>;
  let otherOwner: ReturnType<typeof client>;

  before(async () => {
    t = await startTestApp(database.url, { env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: '10.20.0.0/16' } });
    farm = await makeTenant(t.database.db);
    const other = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    staff = client(t.url, await loginToken(t.url, farm.code, await makeUser(t.database.db, farm, 'staff')));
    otherOwner = client(t.url, await loginToken(t.url, other.code, other.owner));
  });
  after(() => t.close());

  const create = (body: Record<string, unknown> = {}) =>
    owner.post('/api/webhooks', {
      json: { url: 'https://93.184.215.14/hook', events: ['harvest.batch.created'], ...body },
    });

  it('creates an endpoint and shows its secret once', async () => {
    const res = await create({ description: 'ERP', events: ['iot.alert.raised', 'harvest.batch.created'] });
    assert.equal(res.status, 201);
    const ep = res.body.data;
    assert.match(ep.id, /^ep_[0-9A-Za-z]{22}$/);
    assert.equal(res.headers.get('location'), `/api/webhooks/${ep.id}`);
    assert.match(ep.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(
      { ...ep, id: undefined, secret: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        secret: undefined,
        created_at: undefined,
        updated_at: undefined,
        url: 'https://93.184.215.14/hook',
        events: ['iot.alert.raised', 'harvest.batch.created'],
        description: 'ERP',
        status: 'active',
        paused_reason: null,
        consecutive_failures: 0,
        held_count: 0,
        headers: {},
        previous_secret_expires_at: null,
        last_delivery: null,
        filters: null,
      },
    );
    assert.equal(ep.created_at, new Date(t.clock.now()).toISOString());

    const read = await owner.get(`/api/webhooks/${ep.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.data.secret, undefined);
    const list = await owner.get('/api/webhooks');
    assert.ok(
      list.body.some((e: { id: string; secret?: string }) => e.id === ep.id && e.secret === undefined),
    );

    const stored = await t.database.db
      .selectFrom('webhook_endpoints')
      .select('secret_encrypted')
      .where('public_id', '=', ep.id)
      .executeTakeFirstOrThrow();
    assert.ok(!stored.secret_encrypted.includes(ep.secret.slice(6)));
  });

  it('changes url, events and description; "*" selects every event', async () => {
    const ep = (await create()).body.data;
    t.clock.advance(1000);
    const res = await owner.put(`/api/webhooks/${ep.id}`, {
      json: { url: 'https://[2606:4700::1111]/in', events: ['*', 'iot.alert.raised'], description: 'all' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.url, 'https://[2606:4700::1111]/in');
    assert.deepEqual(res.body.data.events, ['*']);
    assert.equal(res.body.data.description, 'all');
    assert.notEqual(res.body.data.updated_at, ep.updated_at);
    const partial = await owner.put(`/api/webhooks/${ep.id}`, { json: { description: 'only this' } });
    assert.equal(partial.body.data.url, 'https://[2606:4700::1111]/in');
  });

  it('rotates the secret: a new one, shown once; the old one signs for 24 h unless told otherwise', async () => {
    const ep = (await create()).body.data;
    const res = await owner.post(`/api/webhooks/${ep.id}/rotate-secret`);
    assert.equal(res.status, 200);
    assert.match(res.body.data.secret, /^whsec_/);
    assert.notEqual(res.body.data.secret, ep.secret);
    const day = new Date(t.clock.now() + 86_400_000).toISOString();
    assert.equal(res.body.data.previous_secret_expires_at, day);
    assert.equal((await owner.get(`/api/webhooks/${ep.id}`)).body.data.previous_secret_expires_at, day);
    const hour = await owner.post(`/api/webhooks/${ep.id}/rotate-secret`, {
      json: { expire_previous_in_seconds: 3600 },
    });
    assert.equal(
      hour.body.data.previous_secret_expires_at,
      new Date(t.clock.now() + 3_600_000).toISOString(),
    );
    const now = await owner.post(`/api/webhooks/${ep.id}/rotate-secret`, {
      json: { expire_previous_in_seconds: 0 },
    });
    assert.equal(now.status, 200);
    assert.equal(now.body.data.previous_secret_expires_at, null);
    const stored = await t.database.db
      .selectFrom('webhook_endpoints')
      .select(['previous_secret_encrypted', 'previous_secret_expires_at'])
      .where('public_id', '=', ep.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { previous_secret_encrypted: null, previous_secret_expires_at: null });
    for (const bad of [-1, 604_801, 1.5, 'soon']) {
      const res = await owner.post(`/api/webhooks/${ep.id}/rotate-secret`, {
        json: { expire_previous_in_seconds: bad },
      });
      assert.equal(res.status, 422, String(bad));
      assert.equal(res.body[0].meta.errors[0].field, 'expire_previous_in_seconds');
    }
    const week = await owner.post(`/api/webhooks/${ep.id}/rotate-secret`, {
      json: { expire_previous_in_seconds: 604_800 },
    });
    assert.equal(week.status, 200);
  });

  it('keeps custom headers, answers them to owners, and refuses the ones it must not send', async () => {
    const headers = { Authorization: 'Bearer gw-token-1', 'X-Farm': 'north field' };
    const res = await create({ headers });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.headers, headers);
    const id = res.body.data.id;
    assert.deepEqual((await owner.get(`/api/webhooks/${id}`)).body.data.headers, headers);
    const changed = await owner.put(`/api/webhooks/${id}`, { json: { headers: { 'X-Only': '1' } } });
    assert.deepEqual(changed.body.data.headers, { 'X-Only': '1' }, 'a change replaces the whole set');
    const kept = await owner.put(`/api/webhooks/${id}`, { json: { description: 'still there' } });
    assert.deepEqual(kept.body.data.headers, { 'X-Only': '1' });
    assert.deepEqual(
      (await owner.put(`/api/webhooks/${id}`, { json: { headers: null } })).body.data.headers,
      {},
    );

    const refused: [Record<string, string>, string, RegExp][] = [
      [{ 'Webhook-Signature': 'x' }, 'headers.Webhook-Signature', /Furrow sets and signs itself/],
      [{ 'x-service-event': 'x' }, 'headers.x-service-event', /Furrow sets and signs itself/],
      [{ 'User-Agent': 'x' }, 'headers.User-Agent', /Furrow sets and signs itself/],
      [{ 'Content-Type': 'text/plain' }, 'headers.Content-Type', /belongs to HTTP itself/],
      [{ HOST: 'evil.example' }, 'headers.HOST', /belongs to HTTP itself/],
      [{ 'Transfer-Encoding': 'chunked' }, 'headers.Transfer-Encoding', /belongs to HTTP itself/],
      [{ 'Proxy-Authorization': 'x' }, 'headers.Proxy-Authorization', /belongs to HTTP itself/],
      [{ Connection: 'close' }, 'headers.Connection', /belongs to HTTP itself/],
      [{ 'Bad Name': 'x' }, 'headers.Bad Name', /not an HTTP header name/],
      [{ 'X-Inject': 'a\r\nX-Evil: 1' }, 'headers.X-Inject', /on one line/],
      [{ 'X-Long': 'v'.repeat(1025) }, 'headers.X-Long', /longer than 1024/],
      [{ 'X-A': '1', 'x-a': '2' }, 'headers.x-a', /given twice/],
    ];
    for (const [bad, field, message] of refused) {
      const res = await create({ headers: bad });
      assert.equal(res.status, 422, `${field}: ${res.text}`);
      assert.equal(res.body[0].meta.code, 'validation_failed');
      const [error] = res.body[0].meta.errors;
      assert.equal(error.field, field);
      assert.match(error.message, message);
      assert.ok(!res.text.includes('gw-token'));
      const change = await owner.put(`/api/webhooks/${id}`, { json: { headers: bad } });
      assert.equal(change.status, 422, field);
    }
    const secretValue = await create({ headers: { 'X-Token': 'hunter2\u0001value' } });
    assert.equal(secretValue.status, 422);
    assert.ok(!secretValue.text.includes('hunter2'), 'a refused value is not repeated');
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, String(i)]));
    const tooMany = await create({ headers: eleven });
    assert.equal(tooMany.status, 422);
    assert.equal(tooMany.body[0].meta.errors[0].field, 'headers');
    const ten = Object.fromEntries(Object.entries(eleven).slice(0, 10));
    assert.equal((await create({ headers: ten })).status, 201);
  });

  it('deletes an endpoint', async () => {
    const ep = (await create()).body.data;
    const res = await owner.delete(`/api/webhooks/${ep.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, [{ status_code: 0, message: 'Deleted successfully' }]);
    assert.equal((await owner.get(`/api/webhooks/${ep.id}`)).status, 404);
  });

  it('validates input with 422 naming each field', async () => {
    const res = await owner.post('/api/webhooks', { json: { url: { href: 'x' }, events: ['crop.created'] } });
    assert.equal(res.status, 422);
    const fields = res.body[0].meta.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['events.0', 'url']);
    const empty = await owner.post('/api/webhooks', { json: { url: 'https://93.184.215.14/', events: [] } });
    assert.equal(empty.status, 422);
    const missing = await owner.post('/api/webhooks', { json: {} });
    assert.deepEqual(missing.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
      'events',
      'url',
    ]);
  });

  it('refuses every non-public receiving URL at save, naming the reason', async () => {
    for (const { url } of addressVectors.reject) {
      const res = await create({ url });
      assert.equal(res.status, 422, `${url}: ${res.text}`);
      assert.equal(res.body[0].meta.errors[0].field, 'url');
    }
    const loopback = await create({ url: 'https://10.1.2.3/hook' });
    assert.equal(
      loopback.body[0].meta.errors[0].message,
      'url points to a non-public address: 10.1.2.3 is private (RFC 1918)',
    );
    const http = await create({ url: 'http://example.com/hook' });
    assert.equal(http.body[0].meta.errors[0].message, 'url must use https');
    for (const url of addressVectors.accept) assert.equal((await create({ url })).status, 201, url);
    assert.equal((await create({ url: 'https://10.20.1.1/on-premise' })).status, 201, 'allow-listed range');
    const ep = (await create()).body.data;
    const change = await owner.put(`/api/webhooks/${ep.id}`, { json: { url: 'https://169.254.169.254/x' } });
    assert.equal(change.status, 422);
  });

  it('refuses a URL with spaces or control characters rather than storing what it would not dial', async () => {
    for (const url of [
      'https://93.184.215.14/a b',
      'https://93.184.215.14/a\r\nX-Injected: 1',
      'https://93.184.215.14/\tpath',
      'https://93.184.215.14/\u0085',
    ]) {
      const res = await create({ url });
      assert.equal(res.status, 422, JSON.stringify(url));
      assert.deepEqual(res.body[0].meta.errors, [
        {
          field: 'url',
          message: 'url must not contain spaces or control characters (percent-encode them, e.g. %20)',
        },
      ]);
    }
    // Spaces around the URL are trimmed before it is checked and stored.
    const padded = await create({ url: ' https://93.184.215.14/hook\n' });
    assert.equal(padded.body.data.url, 'https://93.184.215.14/hook');
    const encoded = await create({ url: 'https://93.184.215.14/a%20b' });
    assert.equal(encoded.status, 201);
    assert.equal(encoded.body.data.url, 'https://93.184.215.14/a%20b');
    const change = await owner.put(`/api/webhooks/${encoded.body.data.id}`, {
      json: { url: 'https://93.184.215.14/a\r\nb' },
    });
    assert.equal(change.status, 422);
  });

  it('is owner-only: staff get 403', async () => {
    const ep = (await create()).body.data;
    for (const res of await Promise.all([
      staff.get('/api/webhooks'),
      staff.post('/api/webhooks', { json: { url: 'https://93.184.215.14/', events: ['*'] } }),
      staff.get(`/api/webhooks/${ep.id}`),
      staff.post(`/api/webhooks/${ep.id}/rotate-secret`),
      staff.post(`/api/webhooks/${ep.id}/rotate-secret`, { json: { expire_previous_in_seconds: 0 } }),
      staff.get(`/api/webhooks/${ep.id}/deliveries`),
    ])) {
      assert.equal(res.status, 403);
    }
  });

  it("answers 404 for another tenant's endpoint or delivery, and for malformed ids", async () => {
    const ep = (await create()).body.data;
    const test = await owner.post(`/api/webhooks/${ep.id}/test`);
    assert.equal(test.status, 202);
    const msg = test.body.data.id;
    for (const res of await Promise.all([
      otherOwner.get(`/api/webhooks/${ep.id}`),
      otherOwner.put(`/api/webhooks/${ep.id}`, { json: { description: 'x' } }),
      otherOwner.delete(`/api/webhooks/${ep.id}`),
      otherOwner.post(`/api/webhooks/${ep.id}/test`),
      otherOwner.post(`/api/webhooks/${ep.id}/rotate-secret`),
      otherOwner.post(`/api/webhooks/${ep.id}/enable`),
      otherOwner.get(`/api/webhooks/${ep.id}/deliveries`),
      otherOwner.post(`/api/webhooks/${ep.id}/deliveries/${msg}/redeliver`),
      owner.get('/api/webhooks/ep_nope'),
      owner.post(`/api/webhooks/${ep.id}/deliveries/msg_nope/redeliver`),
    ])) {
      assert.equal(res.status, 404, res.text);
    }
    assert.ok(!(await otherOwner.get('/api/webhooks')).body.some((e: { id: string }) => e.id === ep.id));
    assert.equal((await owner.get(`/api/webhooks/${ep.id}`)).status, 200);
  });

  it('queues a test message and refuses to redeliver a queued delivery (409)', async () => {
    const ep = (await create()).body.data;
    const test = await owner.post(`/api/webhooks/${ep.id}/test`);
    assert.equal(test.status, 202);
    const d = test.body.data;
    assert.match(d.id, /^msg_/);
    assert.equal(d.event_type, 'webhook.test');
    assert.equal(d.status, 'pending');
    assert.equal(d.attempt_count, 0);
    assert.deepEqual(d.attempts, []);
    assert.deepEqual(JSON.parse(d.request.body), {
      id: d.id,
      type: 'webhook.test',
      workspace_id: farm.code,
      occurred_at: new Date(t.clock.now()).toISOString(),
      data: { endpoint_id: ep.id, message: 'This is a test message from Furrow.' },
    });
    assert.equal(d.request.headers['X-Service-Delivery'], d.id);
    const again = await owner.post(`/api/webhooks/${ep.id}/deliveries/${d.id}/redeliver`);
    assert.equal(again.status, 409);
    const log = await owner.get(`/api/webhooks/${ep.id}/deliveries`);
    assert.deepEqual(
      log.body.map((x: { id: string }) => x.id),
      [d.id],
    );
  });
});
