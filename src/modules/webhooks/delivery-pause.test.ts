// Pausing an endpoint end to end: after a streak of failed deliveries, by hand or while an attempt or
// an event is in flight; what is held, what is still sent (test messages), and resuming in order.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { DELAYS, type WebhookFixture, webhookFixture } from '../../../test/support/webhook-fixture.js';
import type { Receiver } from '../../../test/support/webhook-receiver.js';
import { holdQueuedDeliveries } from './endpoint-pause.js';
import { emitEvent } from './outbox.js';

forEachDialect('webhook deliveries: pausing', (database) => {
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
});
