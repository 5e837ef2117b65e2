// The delivery worker end to end: recording attempts in batches (with their hourly roll-up), pruning the log, the per-endpoint
// share of its slots, waking at commit and on schedule, claiming again when another holds what it
// chose, and leases of attempts still in flight.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect, holdLocks } from '../../../test/support/databases.js';
import { DELAYS, type WebhookFixture, webhookFixture } from '../../../test/support/webhook-fixture.js';
import type { Receiver } from '../../../test/support/webhook-receiver.js';
import { claimDueDeliveries } from './delivery-claim.js';
import { PAUSE_AFTER_FAILURES } from './delivery-policy.js';
import { recordAttempts } from './delivery-record.js';
import { emitEvent } from './outbox.js';
import { createDeliveryWorker } from './worker.js';

forEachDialect('webhook deliveries: the worker', (database) => {
  const f = webhookFixture(database);
  let t: TestApp;
  let receiver: Receiver;
  let farm: WebhookFixture['farm'];
  let worker: WebhookFixture['worker'];
  before(() => {
    ({ t, receiver, farm, worker } = f);
  });
  const { workerWith, endpoint, emit, deliveries } = f;
  /** Leases every due delivery (up to 10) as a worker's claim would. */
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

  it('records attempts in one batch, and one attempt that cannot be recorded loses no other', async () => {
    const ep = await endpoint();
    for (let i = 0; i < 3; i++) await emit('iot.alert.raised', { n: i });
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
    // The roll-up went with the batch rolled back: the three recorded attempts count once each.
    const stats = (await f.owner.get(`/api/webhooks/${ep.id}/stats`)).body.data;
    assert.deepEqual([stats.succeeded, stats.failed, stats.pending], [3, 0, 1]);
    const hours = await t.database.db
      .selectFrom('webhook_delivery_hours')
      .select(['attempts', 'ms_10'])
      .where('tenant_id', '=', farm.id)
      .execute();
    assert.deepEqual(
      hours.map((h) => [Number(h.attempts), Number(h.ms_10)]),
      [[3, 3]],
    );
  });

  it('records a batch of a final failure and successes of one endpoint as one by one would, on either database', async () => {
    const ep = await endpoint();
    for (let i = 0; i < 3; i++) await emit('iot.alert.raised', { n: i });
    const claimed = await claimAll();
    assert.equal(claimed.length, 3);
    // The endpoint one failure short of its pause; the oldest delivery at its last attempt.
    await t.database.db
      .updateTable('webhook_endpoints')
      .set({ consecutive_failures: PAUSE_AFTER_FAILURES - 1 })
      .where('id', '=', claimed[0]!.endpointId)
      .execute();
    const last = { ...claimed[0]!, attemptCount: DELAYS.length };
    const outcome = (ok: boolean) => ({
      startedAt: t.clock.now(),
      durationMs: 5,
      ok,
      statusCode: ok ? 200 : 500,
      error: ok ? null : 'HTTP 500',
      responseExcerpt: '',
      requestHeaders: {},
    });
    const results = await recordAttempts(
      t.database.db,
      [
        { delivery: last, outcome: outcome(false) },
        { delivery: claimed[1]!, outcome: outcome(true) },
        { delivery: claimed[2]!, outcome: outcome(true) },
      ],
      { now: t.clock.now(), retryScheduleMs: DELAYS },
    );
    const statuses = results.map((r) => r.status === 'fulfilled' && r.value.status);
    const endpointNow = await f.getEndpoint(ep.id);
    if (database.dialect === 'sqlite') {
      // One transaction in delivery order: the failure pauses the endpoint, and the successes that
      // follow are held, to go again on enable (as recorded one by one in that order).
      assert.deepEqual(statuses, ['failed', 'held', 'held']);
      assert.equal(endpointNow.status, 'paused');
    } else {
      // The successes in one statement, then the failure in a transaction of its own: the streak
      // ended by the successes starts again at one.
      assert.deepEqual(statuses, ['failed', 'succeeded', 'succeeded']);
      assert.equal(endpointNow.status, 'active');
      assert.equal(endpointNow.consecutive_failures, 1);
    }
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

  it('sleeps only until the next delivery falls due, read by the claim that leased fewer than it could', async () => {
    // The first claim leases the slow endpoint's delivery and sees the other one due shortly: it
    // must wake for it then, not at the idle check nor when the slow attempt ends (5 s later).
    const slow = await endpoint(() => ({ delayMs: 5000 }), ['iot.alert.raised']);
    const later = await endpoint(() => undefined, ['iot.device.offline']);
    const [laterId] = await emit('iot.device.offline', { n: 'later' });
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: Date.now() + 300 })
      .where('public_id', '=', laterId!)
      .execute();
    await emit('iot.alert.raised', { n: 'slow' });
    const looping = createDeliveryWorker(
      {
        database: t.database,
        clock: { now: () => Date.now() },
        config: t.config,
        secretKey: t.config.secretKey!,
      },
      { idleCheckMs: 600_000 },
    );
    const before = receiver.requests.length;
    await looping.start();
    try {
      await receiver.waitForRequests(before + 2, 4000);
      assert.equal(later.received().length, 1);
      assert.equal(slow.received().length, 1);
    } finally {
      await looping.stop();
    }
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

  it('sends an event queued while its endpoint has its full share in flight as soon as a slot frees', async () => {
    // One slot per endpoint, and finished attempts wake the claiming loop only in batches of two:
    // the second event comes while the first is in flight, so its wake-up (which names the endpoint,
    // in-process on SQLite and in the NOTIFY on PostgreSQL) starts no claim; the end of the first
    // attempt does, without waiting for a batch or the idle check.
    const ep = await endpoint(() => ({ delayMs: 300 }));
    const looping = workerWith({
      idleCheckMs: 600_000,
      globalConcurrency: 8,
      perEndpointConcurrency: 1,
      perTenantConcurrency: 8,
    });
    await looping.start();
    try {
      t.clock.set(Date.now());
      const before = receiver.requests.length;
      await emit('iot.alert.raised', { n: 1 });
      await receiver.waitForRequests(before + 1, 20_000);
      await emit('iot.alert.raised', { n: 2 });
      await receiver.waitForRequests(before + 2, 20_000);
    } finally {
      await looping.stop();
    }
    assert.deepEqual(
      ep.received().map((r) => JSON.parse(r.body).data.n),
      [1, 2],
    );
  });

  it('claims again soon when another holds what its claim chose, even with more due than its shares', {
    skip: database.dialect !== 'postgres' && 'only PostgreSQL claims without a transaction',
  }, async () => {
    // More is due than the shares let the claim take (it is capped), and another transaction holds
    // every queued delivery of the tenant: the claim chooses some, leases none, and nothing of this
    // worker is in flight to wake it. It must claim again soon rather than sleep to the idle check.
    const ep = await endpoint();
    t.clock.set(Date.now());
    const before = receiver.requests.length;
    for (let n = 0; n < 12; n++) await emit('iot.alert.raised', { n });
    const held = await holdLocks(t.database.db, (trx) =>
      trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', farm.id)
        .where('status', 'in', ['pending', 'retrying'])
        .forUpdate()
        .execute(),
    );
    const looping = workerWith({
      idleCheckMs: 600_000,
      globalConcurrency: 8,
      perEndpointConcurrency: 4,
      perTenantConcurrency: 8,
    });
    await looping.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.requests.length, before, 'nothing sent while another holds them');
      await held.release();
      await receiver.waitForRequests(before + 12, 20_000);
    } finally {
      await held.release();
      await looping.stop();
    }
    assert.equal(ep.received().length, 12);
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
