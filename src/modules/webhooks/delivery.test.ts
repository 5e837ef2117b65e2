// Deliveries end to end: the real app and database, a real HTTPS receiver, the worker stepped
// with runOnce under a manual clock.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, afterEach, before, it } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, type TestTenant } from '../../../test/support/factories.js';
import { freePort } from '../../../test/support/processes.js';
import { addressVectors } from '../../../test/support/vectors.js';
import {
  type ReceivedRequest,
  type Receiver,
  startReceiver,
} from '../../../test/support/webhook-receiver.js';
import type { Config } from '../../config.js';
import { claimDueDeliveries } from './delivery-claim.js';
import { recordAttempts } from './delivery-record.js';
import { holdQueuedDeliveries } from './endpoint-pause.js';
import { type EventType, emitEvent } from './outbox.js';
import { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from './worker.js';

const SCHEDULE = '1s,2s,3s,4s,5s,6s';
const DELAYS = [1000, 2000, 3000, 4000, 5000, 6000];

forEachDialect('webhook deliveries', (database) => {
  let t: TestApp;
  let receiver: Receiver;
  let farm: TestTenant;
  let owner: ReturnType<typeof client>;
  let worker: DeliveryWorker;
  let paths = 0;

  before(async () => {
    receiver = await startReceiver((req) => answers.get(req.path.split('?')[0]!)?.(req));
    t = await startTestApp(database.url, {
      env: {
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        WEBHOOK_CA_FILE: receiver.caFile,
        WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
      },
    });
    worker = workerWith();
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
  });
  // Each test starts with no endpoint, so deliveries left retrying by one test stay out of the next.
  // The clock restarts at real time, so receivers' 5-minute timestamp tolerance holds.
  const reset = async () => {
    await t.database.db.deleteFrom('webhook_endpoints').execute();
    t.clock.set(Date.now());
  };
  afterEach(reset);
  after(async () => {
    await worker.stop();
    await t.close();
    await receiver.close();
  });

  const answers = new Map<string, (req: ReceivedRequest) => ReturnType<Receiver['script']>>();
  const workerWith = (options: DeliveryWorkerOptions = {}, config: Partial<Config> = {}) =>
    createDeliveryWorker(
      {
        database: t.database,
        clock: t.clock,
        config: { ...t.config, ...config },
        secretKey: t.config.secretKey!,
      },
      options,
    );

  /** An endpoint on its own receiver path, answered by `answer`. */
  async function endpoint(
    answer: (req: ReceivedRequest, n: number) => ReturnType<Receiver['script']> = () => undefined,
    events: string[] = ['*'],
  ) {
    paths += 1;
    const path = `/hook-${paths}`;
    let n = 0;
    answers.set(path, (req) => answer(req, n++));
    const res = await owner.post('/api/webhooks', { json: { url: receiver.origin + path, events } });
    assert.equal(res.status, 201, res.text);
    const received = () => receiver.requests.filter((r) => r.path === path);
    return { ...(res.body.data as { id: string; secret: string }), path, received };
  }

  const emit = (type: EventType, data: Record<string, unknown>) =>
    t.database.db
      .transaction()
      .execute((trx) => emitEvent({ clock: t.clock }, { db: trx, tenantId: farm.id }, type, data));
  const deliveries = async (epId: string) =>
    (await owner.get(`/api/webhooks/${epId}/deliveries`)).body as any[];
  const getEndpoint = async (epId: string) => (await owner.get(`/api/webhooks/${epId}`)).body.data;

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
        ['4xx', () => ({ status: 410 }), /^receiver answered HTTP 410$/, 410],
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

  it('pauses after 5 fully failed deliveries, holds new ones, resumes them in order on enable', async () => {
    let up = false;
    const ep = await endpoint(() => (up ? undefined : { status: 500 }));
    for (let i = 0; i < 5; i++) await emit('iot.alert.raised', { n: i });
    await worker.drain();
    for (const delay of DELAYS.slice(0, -1)) {
      t.clock.advance(delay);
      await worker.drain();
    }
    // One more event while four deliveries are still retrying; the last round pauses the endpoint.
    assert.equal((await getEndpoint(ep.id)).status, 'active');
    t.clock.advance(DELAYS.at(-1)!);
    await worker.drain();
    let state = await getEndpoint(ep.id);
    assert.equal(state.status, 'paused');
    assert.equal(state.consecutive_failures, 5);
    assert.match(state.paused_reason, /5 consecutive deliveries failed every attempt/);

    const held: string[] = [];
    for (let i = 0; i < 4; i++) held.push(...(await emit('harvest.batch.created', { seq: i })));
    state = await getEndpoint(ep.id);
    assert.equal(state.held_count, 4);
    const before = ep.received().length;
    t.clock.advance(60_000);
    assert.equal(await worker.drain(), 0, 'nothing is sent to a paused endpoint');
    assert.equal(ep.received().length, before);
    const log = await deliveries(ep.id);
    assert.deepEqual(
      log.filter((d) => d.status === 'held').map((d) => d.id),
      [...held].reverse(),
    );

    up = true;
    const enabled = await owner.post(`/api/webhooks/${ep.id}/enable`);
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.data.status, 'active');
    assert.equal(enabled.body.data.paused_reason, null);
    assert.equal(enabled.body.data.consecutive_failures, 0);
    assert.equal(enabled.body.data.held_count, 0);
    const inOrder = workerWith({ perEndpointConcurrency: 1 });
    assert.equal(await inOrder.drain(), 4);
    await inOrder.stop();
    assert.deepEqual(
      ep
        .received()
        .slice(before)
        .map((r) => r.headers['x-service-delivery']),
      held,
    );
    assert.deepEqual(
      (await deliveries(ep.id)).filter((d) => held.includes(d.id)).map((d) => d.status),
      ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
    );
  });

  it('sends webhook.test once; it never counts toward pausing', async () => {
    const ep = await endpoint(() => ({ status: 500 }));
    // Three at a time: at most five wait at once.
    for (const _ of [1, 2]) {
      for (let i = 0; i < 3; i++) assert.equal((await owner.post(`/api/webhooks/${ep.id}/test`)).status, 202);
      assert.equal(await worker.drain(), 3);
    }
    t.clock.advance(3_600_000);
    assert.equal(await worker.drain(), 0, 'no retries');
    const log = await deliveries(ep.id);
    assert.equal(log.length, 6);
    assert.ok(
      log.every((d) => d.status === 'failed' && d.attempt_count === 1 && d.event_type === 'webhook.test'),
    );
    const state = await getEndpoint(ep.id);
    assert.equal(state.status, 'active');
    assert.equal(state.consecutive_failures, 0);
    const req = ep.received()[0]!;
    assert.equal(req.headers['x-service-event'], 'webhook.test');
    assert.deepEqual(new Webhook(ep.secret).verify(req.body, req.headers), JSON.parse(req.body));
  });

  it('signs with the new secret after rotation; the old one no longer verifies', async () => {
    const ep = await endpoint();
    const rotated = (await owner.post(`/api/webhooks/${ep.id}/rotate-secret`)).body.data.secret as string;
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

  it('records attempts in one batch, and one attempt that cannot be recorded loses no other', async () => {
    const ep = await endpoint();
    for (let i = 0; i < 3; i++) await emit('iot.alert.raised', { n: i });
    const claimAll = async () =>
      (
        await claimDueDeliveries(t.database.db, {
          now: t.clock.now(),
          leaseMs: 60_000,
          owner: 'test-worker',
          limit: 10,
          perEndpointLimit: 10,
          inFlightByEndpoint: new Map(),
        })
      ).deliveries;
    const claimed = await claimAll();
    assert.equal(claimed.length, 3);
    const outcome = (requestHeaders: Record<string, unknown>) => ({
      startedAt: t.clock.now(),
      durationMs: 5,
      ok: true,
      statusCode: 200,
      error: null,
      responseExcerpt: 'ok',
      requestHeaders: requestHeaders as Record<string, string>,
    });
    const options = { now: t.clock.now(), retryScheduleMs: DELAYS };
    // Together, as the worker records them on SQLite: all three in one transaction.
    const good = await recordAttempts(
      t.database.db,
      claimed.slice(0, 2).map((delivery) => ({ delivery, outcome: outcome({ a: 'b' }) })),
      options,
    );
    assert.deepEqual(
      good.map((r) => r.status === 'fulfilled' && r.value.status),
      ['succeeded', 'succeeded'],
    );
    // A record that fails (its headers cannot be stored) rolls the batch back; each is then recorded
    // on its own, so the other one still lands.
    const [again] = await emit('iot.alert.raised', { n: 3 });
    const [next] = await claimAll();
    assert.equal(next?.publicId, again);
    const mixed = await recordAttempts(
      t.database.db,
      [
        { delivery: claimed[2]!, outcome: outcome({ broken: 1n }) },
        { delivery: next!, outcome: outcome({ a: 'b' }) },
      ],
      options,
    );
    assert.equal(mixed[0]!.status, 'rejected');
    assert.deepEqual(mixed[1]!.status === 'fulfilled' && mixed[1]!.value, {
      recorded: true,
      status: 'succeeded',
      endpointPaused: false,
    });
    const statuses = new Map((await deliveries(ep.id)).map((d) => [d.id, d.status]));
    assert.equal(statuses.get(claimed[0]!.publicId), 'succeeded');
    assert.equal(statuses.get(claimed[1]!.publicId), 'succeeded');
    assert.equal(statuses.get(again), 'succeeded');
    // Not recorded: still queued under its lease, to be sent again once the lease runs out.
    assert.equal(statuses.get(claimed[2]!.publicId), 'pending');
  });

  it('keeps the last 50 finished deliveries per endpoint; queued ones are never pruned', async () => {
    let first = true;
    const ep = await endpoint(() => {
      if (first) {
        first = false;
        return { status: 500 };
      }
      return undefined;
    });
    const [stuck] = await emit('iot.alert.raised', { n: -1 });
    await worker.drain();
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push(...(await emit('iot.alert.raised', { n: i })));
    await worker.drain();
    const log = await deliveries(ep.id);
    assert.equal(log.length, 50);
    const rows = await t.database.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.public_id', 'd.status'])
      .where('e.public_id', '=', ep.id)
      .execute();
    const attemptErrors = await t.database.db
      .selectFrom('webhook_attempts')
      .select(['error', 'delivery_id', 'number'])
      .where('error', 'is not', null)
      .execute();
    assert.equal(
      rows.filter((r) => r.status === 'succeeded').length,
      50,
      JSON.stringify({ others: rows.filter((r) => r.status !== 'succeeded'), attemptErrors, n: rows.length }),
    );
    assert.deepEqual(
      rows.filter((r) => r.status !== 'succeeded').map((r) => [r.public_id, r.status]),
      [[stuck, 'retrying']],
    );
    assert.deepEqual(
      new Set(rows.filter((r) => r.status === 'succeeded').map((r) => r.public_id)),
      new Set(ids.slice(5)),
    );
    const attempts = await t.database.db.selectFrom('webhook_attempts').select('delivery_id').execute();
    const deliveryIds = await t.database.db.selectFrom('webhook_deliveries').select('id').execute();
    const live = new Set(deliveryIds.map((r) => r.id));
    assert.ok(
      attempts.every((a) => live.has(a.delivery_id)),
      'attempts of pruned deliveries are gone',
    );
  });

  it('lets a slow receiver take only its per-endpoint share of the slots', async () => {
    const slow = await endpoint(() => ({ delayMs: 300 }), ['iot.alert.raised']);
    const fast = await endpoint(undefined, ['iot.device.offline']);
    for (let i = 0; i < 12; i++) await emit('iot.alert.raised', { n: i });
    for (let i = 0; i < 3; i++) await emit('iot.device.offline', { n: i });
    // The slow endpoint's deliveries come first; without the per-endpoint cap they would take every slot.
    // Both endpoints are one tenant's: its cap is lifted here to see the endpoints' alone.
    const capped = workerWith({ globalConcurrency: 8, perEndpointConcurrency: 3, perTenantConcurrency: 8 });
    assert.equal(await capped.runOnce(), 6);
    assert.equal(slow.received().length, 3);
    assert.equal(fast.received().length, 3);
    await capped.drain();
    await capped.stop();
    assert.equal(slow.received().length, 12);
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

  it('retries on schedule while running, without waiting for the idle check', async () => {
    const ep = await endpoint((_req, n) => (n < 2 ? { status: 503, body: 'later' } : undefined));
    // Real time, and an idle check that would never come within the test.
    const looping = createDeliveryWorker(
      {
        database: t.database,
        clock: { now: () => Date.now() },
        config: { ...t.config, webhookRetryScheduleMs: [200, 200, 200] },
        secretKey: t.config.secretKey!,
      },
      { idleCheckMs: 600_000 },
    );
    await looping.start();
    try {
      t.clock.set(Date.now());
      const before = receiver.requests.length;
      await emit('iot.alert.raised', { retried: 'on time' });
      await receiver.waitForRequests(before + 3, 20_000);
    } finally {
      await looping.stop();
    }
    assert.equal(ep.received().length, 3);
  });

  it('wakes an idle worker at commit, not on a polling interval; a rollback sends nothing', async () => {
    const ep = await endpoint();
    const looping = workerWith({ idleCheckMs: 600_000 });
    await looping.start();
    try {
      await new Promise((r) => setTimeout(r, 100)); // let it fall asleep
      await assert.rejects(
        t.database.db.transaction().execute(async (trx) => {
          await emitEvent({ clock: t.clock }, { db: trx, tenantId: farm.id }, 'iot.alert.raised', {
            rolled: 'back',
          });
          throw new Error('rollback');
        }),
      );
      await emit('iot.alert.raised', { committed: true });
      await receiver.waitForRequests(receiver.requests.length + 1, 20_000);
    } finally {
      await looping.stop();
    }
    const received = ep.received();
    assert.equal(received.length, 1);
    assert.deepEqual(JSON.parse(received[0]!.body).data, { committed: true });
  });
  /** Resolves once a statement of this database waits on a row lock (PostgreSQL). */
  async function someoneWaitsOnALock(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(t.database.db);
      if (Number(rows[0]!.n) > 0) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('nobody waited on a lock');
  }

  it('leaves nothing held when enable commits while an event for the paused endpoint is being written', {
    skip: database.dialect !== 'postgres' && 'needs two concurrent connections',
  }, async () => {
    const ep = await endpoint();
    await t.database.db.updateTable('webhook_endpoints').set({ status: 'paused' }).execute();
    let commit!: () => void;
    const gate = new Promise<void>((r) => {
      commit = r;
    });
    let written!: () => void;
    const wasWritten = new Promise<void>((r) => {
      written = r;
    });
    // The event's transaction saw `paused` and wrote a held delivery; it has not committed yet.
    const emitting = t.database.db.transaction().execute(async (trx) => {
      const ids = await emitEvent({ clock: t.clock }, { db: trx, tenantId: farm.id }, 'iot.alert.raised', {
        raced: true,
      });
      written();
      await gate;
      return ids;
    });
    await wasWritten;
    const enabling = owner.post(`/api/webhooks/${ep.id}/enable`);
    // Enable either finishes now (it could not see the uncommitted row) or waits for the event.
    await Promise.race([enabling, someoneWaitsOnALock()]);
    commit();
    const [id] = await emitting;
    assert.equal((await enabling).status, 200);
    const [d] = await deliveries(ep.id);
    assert.equal(d.id, id);
    assert.equal(d.status, 'pending', 'the event written while paused resumes with the endpoint');
    assert.equal((await getEndpoint(ep.id)).held_count, 0);
    assert.equal(await worker.drain(), 1);
    assert.equal(ep.received().length, 1);
  });
  it('sends nothing but test messages to a paused endpoint, even deliveries left pending', async () => {
    const ep = await endpoint();
    // An event that raced the pause: its delivery is pending on a paused endpoint.
    await emit('iot.alert.raised', { raced: 'pause' });
    await t.database.db.updateTable('webhook_endpoints').set({ status: 'paused' }).execute();
    t.clock.advance(60_000);
    assert.equal(await worker.drain(), 0);
    assert.equal(ep.received().length, 0);
    assert.equal((await owner.post(`/api/webhooks/${ep.id}/test`)).status, 202);
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(
      ep.received().map((r) => r.headers['x-service-event']),
      ['webhook.test'],
    );
  });

  it('keeps a delivery held when the endpoint is paused while its attempt is in flight', async () => {
    for (const answer of [{ status: 500 }, { status: 200 }]) {
      await reset();
      const ep = await endpoint(() => ({ ...answer, delayMs: 300 }));
      const [id] = await emit('iot.alert.raised', { answer: answer.status });
      const running = worker.runOnce();
      await receiver.waitForRequests(receiver.requests.length + 1);
      await t.database.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('webhook_endpoints')
          .set({ status: 'paused', consecutive_failures: 3, paused_reason: 'test' })
          .execute();
        await holdQueuedDeliveries(
          trx,
          farm.id,
          (await trx.selectFrom('webhook_endpoints').select('id').executeTakeFirstOrThrow()).id,
        );
      });
      assert.equal(await running, 1);
      const [d] = await deliveries(ep.id);
      assert.equal(d.id, id);
      assert.equal(d.status, 'held', `HTTP ${answer.status}`);
      assert.equal(d.attempts.length, 1);
      const state = await getEndpoint(ep.id);
      assert.equal(state.status, 'paused');
      assert.equal(state.consecutive_failures, 3, 'the streak is left alone');
      assert.equal(state.held_count, 1);
    }
  });
  it('never claims again a delivery still in flight here, even once its lease has run out', async () => {
    const ep = await endpoint(() => ({ delayMs: 400 }));
    const [id] = await emit('iot.alert.raised', { slow: true });
    const first = worker.runOnce();
    await receiver.waitForRequests(receiver.requests.length + 1);
    // The recording is late (a busy pool, a slow database): the lease has run out meanwhile.
    t.clock.advance(t.config.webhookTimeoutMs + 60_000);
    assert.equal(await worker.runOnce(), 0, 'not sent a second time by the same worker');
    assert.equal(await first, 1);
    assert.equal(ep.received().length, 1);
    const [d] = await deliveries(ep.id);
    assert.equal(d.id, id);
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempts.length, 1);
  });
});
