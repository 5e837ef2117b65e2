// Deliveries end to end: the real app and database, a real HTTPS receiver, the worker stepped
// with runOnce under a manual clock. What goes out, signed how, retried when, refused where; pausing
// is in delivery-pause.test.ts, the worker's own machinery in delivery-worker.test.ts.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { freePort } from '../../../test/support/processes.js';
import { addressVectors } from '../../../test/support/vectors.js';
import { DELAYS, type WebhookFixture, webhookFixture } from '../../../test/support/webhook-fixture.js';
import type { ReceivedRequest, Receiver } from '../../../test/support/webhook-receiver.js';

forEachDialect('webhook deliveries', (database) => {
  const f = webhookFixture(database);
  let t: TestApp;
  let receiver: Receiver;
  let farm: WebhookFixture['farm'];
  let owner: WebhookFixture['owner'];
  let worker: WebhookFixture['worker'];
  before(() => {
    ({ t, receiver, farm, owner, worker } = f);
  });
  const { reset, workerWith, endpoint, emit, deliveries, getEndpoint } = f;

  it('sends a signed message with both header sets, verifiable with standardwebhooks', async () => {
    const ep = await endpoint();
    const [id] = await emit('harvest.batch.created', { harvest_record_id: 42, quantity_kg: 1250.5 });
    assert.equal(await worker.drain(), 1);
    const [req] = ep.received();
    assert.ok(req);
    assert.equal(req.method, 'POST');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['x-service-event'], 'harvest.batch.created');
    assert.equal(req.headers['x-service-delivery'], id);
    assert.equal(req.headers['webhook-id'], id);
    const ts = req.headers['x-service-timestamp']!;
    assert.equal(ts, String(Math.floor(t.clock.now() / 1000)));
    assert.equal(req.headers['webhook-timestamp'], ts);
    const expected = createHmac('sha256', ep.secret).update(`${ts}.${req.body}`).digest('hex');
    assert.equal(req.headers['x-service-signature'], `sha256=${expected}`);
    assert.deepEqual(new Webhook(ep.secret).verify(req.body, req.headers), JSON.parse(req.body));
    assert.deepEqual(JSON.parse(req.body), {
      id,
      type: 'harvest.batch.created',
      workspace_id: farm.code,
      occurred_at: new Date(t.clock.now()).toISOString(),
      data: { harvest_record_id: 42, quantity_kg: 1250.5 },
    });
    const [d] = await deliveries(ep.id);
    assert.equal(d.id, id);
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempt_count, 1);
    assert.equal(d.next_attempt_at, null);
    assert.equal(d.request.body, req.body);
    assert.equal(d.request.headers['X-Service-Signature'], req.headers['x-service-signature']);
    assert.equal(d.attempts.length, 1);
    assert.equal(d.attempts[0].number, 1);
    assert.equal(d.attempts[0].status_code, 200);
    assert.equal(d.attempts[0].error, null);
    assert.equal(d.attempts[0].response_excerpt, 'ok');
  });

  it('sends from a thread of its own (WEBHOOK_SEND_THREAD=on) what it sends from the main thread', async () => {
    const threaded = workerWith({}, { webhookSendThread: true });
    try {
      const ep = await endpoint((_req, n) => (n === 0 ? { status: 500, body: 'busy' } : undefined));
      const [id] = await emit('harvest.batch.created', { harvest_record_id: 7, quantity_kg: 10 });
      assert.equal(await threaded.drain(), 1);
      const [req] = ep.received();
      assert.equal(req?.headers['webhook-id'], id);
      assert.deepEqual(new Webhook(ep.secret).verify(req!.body, req!.headers), JSON.parse(req!.body));
      let [d] = await deliveries(ep.id);
      assert.equal(d.status, 'retrying');
      assert.equal(d.attempts[0].status_code, 500);
      assert.equal(d.attempts[0].response_excerpt, 'busy');
      t.clock.advance(DELAYS[0]!);
      assert.equal(await threaded.drain(), 1);
      [d] = await deliveries(ep.id);
      assert.equal(d.status, 'succeeded');
      assert.deepEqual(
        d.attempts.map((a: { status_code: number }) => a.status_code),
        [500, 200],
      );
    } finally {
      await threaded.stop();
    }
  });

  it('delivers only to endpoints that subscribe to the event', async () => {
    const alerts = await endpoint(undefined, ['iot.alert.raised']);
    const offline = await endpoint(undefined, ['iot.device.offline']);
    await emit('iot.device.offline', { device_id: 1 });
    await worker.drain();
    assert.equal(alerts.received().length, 0);
    assert.equal(offline.received().length, 1);
  });

  it('retries on the schedule with the same id and bytes, signed afresh, until a 2xx', async () => {
    const ep = await endpoint((_req, n) => (n < 2 ? { status: 500, body: 'busy' } : undefined));
    const [id] = await emit('iot.alert.raised', { alert_id: 1, value: 31.5 });
    assert.equal(await worker.drain(), 1);
    let [d] = await deliveries(ep.id);
    assert.equal(d.status, 'retrying');
    assert.equal(d.next_attempt_at, new Date(t.clock.now() + DELAYS[0]!).toISOString());
    t.clock.advance(DELAYS[0]! - 1);
    assert.equal(await worker.runOnce(), 0, 'not due yet');
    t.clock.advance(1);
    assert.equal(await worker.drain(), 1);
    t.clock.advance(DELAYS[1]!);
    assert.equal(await worker.drain(), 1);
    [d] = await deliveries(ep.id);
    assert.equal(d.status, 'succeeded');
    assert.deepEqual(
      d.attempts.map((a: { number: number; status_code: number }) => [a.number, a.status_code]),
      [
        [1, 500],
        [2, 500],
        [3, 200],
      ],
    );
    assert.equal(d.attempts[0].error, 'receiver answered HTTP 500');
    assert.equal(d.attempts[0].response_excerpt, 'busy');
    const received = ep.received();
    assert.equal(received.length, 3);
    assert.equal(new Set(received.map((r) => r.body)).size, 1, 'same bytes every attempt');
    assert.ok(received.every((r) => r.headers['x-service-delivery'] === id));
    assert.equal(new Set(received.map((r) => r.headers['x-service-timestamp'])).size, 3, 'fresh timestamps');
    for (const r of received) {
      const sig = createHmac('sha256', ep.secret)
        .update(`${r.headers['x-service-timestamp']}.${r.body}`)
        .digest('hex');
      assert.equal(r.headers['x-service-signature'], `sha256=${sig}`);
    }
  });

  it('counts 5xx, timeouts, redirects, refused and dropped connections as failed attempts', async () => {
    const cases: [string, (req: ReceivedRequest) => ReturnType<Receiver['script']>, RegExp, number | null][] =
      [
        ['5xx', () => ({ status: 503 }), /^receiver answered HTTP 503$/, 503],
        // 410 Gone pauses the endpoint instead (receiver-signals.test.ts).
        ['4xx', () => ({ status: 404 }), /^receiver answered HTTP 404$/, 404],
        ['timeout', () => ({ delayMs: 1500 }), /^timed out after 500 ms$/, null],
        [
          'redirect',
          () => ({ redirectTo: `${receiver.origin}/elsewhere` }),
          /^redirect \(302\) not followed/,
          302,
        ],
        ['closed', () => ({ close: true }), /closed|reset|socket/i, null],
      ];
    const quick = workerWith({}, { webhookTimeoutMs: 500 });
    for (const [name, answer, error, status] of cases) {
      await reset();
      const ep = await endpoint(answer);
      await emit('iot.alert.raised', { case: name });
      assert.equal(await (name === 'timeout' ? quick : worker).drain(), 1, name);
      const [d] = await deliveries(ep.id);
      assert.equal(d.status, 'retrying', name);
      assert.equal(d.attempts[0].status_code, status, name);
      assert.match(d.attempts[0].error, error, name);
    }
    await quick.stop();
    assert.equal(
      receiver.requests.filter((r) => r.path === '/elsewhere').length,
      0,
      'redirects are never followed',
    );

    await reset();
    const port = await freePort();
    const refused = await owner.post('/api/webhooks', {
      json: { url: `https://127.0.0.1:${port}/nobody`, events: ['*'] },
    });
    await emit('iot.alert.raised', { case: 'refused' });
    await worker.drain();
    const [d] = await deliveries(refused.body.data.id);
    assert.equal(d.status, 'retrying');
    assert.match(d.attempts[0].error, /^connection refused \(ECONNREFUSED\)$/);
  });

  it('keeps only the first 1 KB of an answer', async () => {
    const ep = await endpoint(() => ({ status: 500, body: `${'é'.repeat(100)}${'x'.repeat(100_000)}` }));
    await emit('iot.alert.raised', {});
    await worker.drain();
    const [d] = await deliveries(ep.id);
    const excerpt = d.attempts[0].response_excerpt as string;
    assert.equal(Buffer.byteLength(excerpt), 1024);
    assert.ok(excerpt.startsWith('é'.repeat(100)));
  });

  it('makes 7 attempts in all, then fails the delivery', async () => {
    const ep = await endpoint(() => ({ status: 500 }));
    await emit('iot.alert.raised', {});
    await worker.drain();
    for (const delay of DELAYS) {
      t.clock.advance(delay);
      assert.equal(await worker.drain(), 1);
    }
    t.clock.advance(3_600_000);
    assert.equal(await worker.drain(), 0);
    const [d] = await deliveries(ep.id);
    assert.equal(d.status, 'failed');
    assert.equal(d.attempt_count, 7);
    assert.equal(d.attempts.length, 7);
    assert.equal(d.next_attempt_at, null);
    assert.equal(ep.received().length, 7);
    assert.equal((await getEndpoint(ep.id)).consecutive_failures, 1);
  });

  it('signs with the new secret after a rotation without overlap; the old one no longer verifies', async () => {
    const ep = await endpoint();
    const rotated = (
      await owner.post(`/api/webhooks/${ep.id}/rotate-secret`, { json: { expire_previous_in_seconds: 0 } })
    ).body.data.secret as string;
    await emit('iot.device.offline', { device_id: 9 });
    await worker.drain();
    const req = ep.received()[0]!;
    assert.doesNotThrow(() => new Webhook(rotated).verify(req.body, req.headers));
    assert.throws(() => new Webhook(ep.secret).verify(req.body, req.headers));
    const ts = req.headers['x-service-timestamp'];
    const old = createHmac('sha256', ep.secret).update(`${ts}.${req.body}`).digest('hex');
    assert.notEqual(req.headers['x-service-signature'], `sha256=${old}`);
  });

  it('redelivers a finished delivery: same id and bytes, fresh timestamp and signature', async () => {
    const ep = await endpoint();
    const [id] = await emit('harvest.batch.created', { harvest_record_id: 7 });
    await worker.drain();
    t.clock.advance(90_000);
    const res = await owner.post(`/api/webhooks/${ep.id}/deliveries/${id}/redeliver`);
    assert.equal(res.status, 202);
    assert.equal(res.body.data.id, id);
    assert.equal(res.body.data.status, 'pending');
    assert.equal(await worker.drain(), 1);
    const [first, second] = ep.received();
    assert.ok(first && second);
    assert.equal(second.body, first.body);
    assert.equal(second.headers['x-service-delivery'], id);
    assert.equal(
      Number(second.headers['x-service-timestamp']) - Number(first.headers['x-service-timestamp']),
      90,
    );
    assert.notEqual(second.headers['x-service-signature'], first.headers['x-service-signature']);
    const sig = createHmac('sha256', ep.secret)
      .update(`${second.headers['x-service-timestamp']}.${second.body}`)
      .digest('hex');
    assert.equal(second.headers['x-service-signature'], `sha256=${sig}`);
    const [d] = await deliveries(ep.id);
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempt_count, 2);
  });

  it('refuses, at send time, a host allow-listed at save and dropped from the list since', async () => {
    const ep = await endpoint();
    await emit('iot.alert.raised', {});
    const strict = workerWith({}, { webhookAllowPrivateHosts: [] });
    assert.equal(await strict.drain(), 1);
    await strict.stop();
    assert.equal(ep.received().length, 0);
    const [d] = await deliveries(ep.id);
    assert.equal(d.status, 'retrying');
    assert.equal(d.attempts[0].error, 'refused to connect to 127.0.0.1: not a public address (loopback)');
  });

  it('refuses every address vector at send time, without connecting', async () => {
    const strict = workerWith({}, { webhookAllowPrivateHosts: [] });
    for (const { url } of addressVectors.reject) {
      await reset();
      const ep = await endpoint();
      // As if the host's addresses had changed since it was saved.
      await t.database.db
        .updateTable('webhook_endpoints')
        .set({ url })
        .where('public_id', '=', ep.id)
        .execute();
      await emit('iot.alert.raised', { url });
      assert.equal(await strict.drain(), 1, url);
      const [d] = await deliveries(ep.id);
      assert.equal(d.status, 'retrying', url);
      assert.equal(d.attempts[0].status_code, null, url);
      assert.match(
        d.attempts[0].error,
        /^refused (to connect to .+: not a public address \(.+\)|to send: .+)$/,
        `${url}: ${d.attempts[0].error}`,
      );
    }
    await strict.stop();
  });
});
