// The owner's control of an endpoint against the real HTTPS receiver: pausing by hand, the
// webhook.endpoint.paused event the farm's other endpoints get (and the owners' mail), and recovering
// every delivery that failed in a window.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { client } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser } from '../../../test/support/factories.js';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink.js';
import { DELAYS, webhookFixture } from '../../../test/support/webhook-fixture.js';
import { newDeliveryRow } from './outbox.js';
import { insertDeliveries } from './webhook.repository.js';

forEachDialect('webhook endpoints: pause, the paused event, recover', (database) => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  const f = webhookFixture(database, { env: () => ({ SMTP_URL: sink.url }) });
  after(() => sink?.close());

  /** Every attempt of every queued delivery, as the clock runs through the retry schedule. */
  async function runSchedule(): Promise<void> {
    await f.worker.drain();
    for (const delay of DELAYS) {
      f.t.clock.advance(delay);
      await f.worker.drain();
    }
  }
  const mailRows = () =>
    f.t.database.db
      .selectFrom('mail_outbox')
      .select(['kind', 'to_address'])
      .where('tenant_id', '=', f.farm.id)
      .execute();
  const pausedEvents = (received: { body: string }[]) =>
    received.map((r) => JSON.parse(r.body)).filter((b) => b.type === 'webhook.endpoint.paused');

  it('pauses by hand: events are held, the other endpoints are told, no mail; enable resumes', async () => {
    await f.t.database.db.deleteFrom('mail_outbox').execute();
    assert.equal((await f.owner.put('/api/account', { json: { email: 'owner@farm.test' } })).status, 200);
    const paused = await f.endpoint(() => undefined, ['harvest.batch.created']);
    const watcher = await f.endpoint(() => undefined, ['webhook.endpoint.paused']);
    const all = await f.endpoint(() => undefined, ['*']);
    const alerts = await f.endpoint(() => undefined, ['iot.alert.raised']);
    await f.owner.put(`/api/webhooks/${paused.id}`, { json: { description: 'Packing house' } });

    const res = await f.owner.post(`/api/webhooks/${paused.id}/pause`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'paused');
    assert.equal(res.body.data.paused_reason, 'owner');
    const again = await f.owner.post(`/api/webhooks/${paused.id}/pause`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data, res.body.data, 'pausing a paused endpoint changes nothing');

    const [held] = await f.emit('harvest.batch.created', { harvest_record_id: 1 });
    assert.equal(await f.worker.drain(), 3, 'two paused events and the harvest to "*"');
    assert.equal(paused.received().length, 0);
    assert.equal(alerts.received().length, 0);
    for (const ep of [watcher, all]) {
      const events = pausedEvents(ep.received());
      assert.equal(events.length, 1, 'one event, not one per pause request');
      assert.deepEqual(events[0].data, {
        endpoint_id: paused.id,
        url: `${f.receiver.origin}${paused.path}`,
        description: 'Packing house',
        paused_reason: 'owner',
        paused_at: new Date(Date.parse(res.body.data.updated_at)).toISOString(),
        consecutive_failures: 0,
      });
    }
    const req = watcher.received()[0]!;
    assert.deepEqual(new Webhook(watcher.secret).verify(req.body, req.headers), JSON.parse(req.body));
    assert.deepEqual(await mailRows(), [], 'owners are not mailed about their own pause');
    assert.equal((await f.getEndpoint(paused.id)).held_count, 1);

    const enabled = await f.owner.post(`/api/webhooks/${paused.id}/enable`);
    assert.equal(enabled.body.data.status, 'active');
    assert.equal(await f.worker.drain(), 1);
    assert.deepEqual(
      paused.received().map((r) => r.headers['x-service-delivery']),
      [held],
    );
  });

  it('tells the other endpoints and mails the owners when failures pause an endpoint', async () => {
    await f.t.database.db.deleteFrom('mail_outbox').execute();
    assert.equal((await f.owner.put('/api/account', { json: { email: 'owner@farm.test' } })).status, 200);
    const failing = await f.endpoint(() => ({ status: 500 }), ['harvest.batch.created']);
    const watcher = await f.endpoint(() => undefined, ['webhook.endpoint.paused']);
    for (let i = 0; i < 5; i++) await f.emit('harvest.batch.created', { n: i });
    await runSchedule();
    const state = await f.getEndpoint(failing.id);
    assert.equal(state.status, 'paused');
    await f.worker.drain();
    const [event] = pausedEvents(watcher.received());
    assert.equal(event.data.endpoint_id, failing.id);
    assert.equal(event.data.paused_reason, '5 consecutive deliveries failed every attempt');
    assert.equal(event.data.consecutive_failures, 5);
    assert.equal(pausedEvents(failing.received()).length, 0, 'never to the endpoint paused');
    assert.deepEqual(await mailRows(), [{ kind: 'webhook.endpoint.paused', to_address: 'owner@farm.test' }]);
    const today = await f.owner.get('/api/today');
    assert.equal(today.status, 200, today.text);
    const item = today.body.paused_webhooks.items.find((i: { id: string }) => i.id === failing.id);
    assert.equal(item?.paused_reason, '5 consecutive deliveries failed every attempt');
  });

  it('sends again every delivery that failed in the window, and only those', async () => {
    let up = false;
    const ep = await f.endpoint(() => (up ? undefined : { status: 500 }));
    const early = [];
    for (let i = 0; i < 3; i++) early.push(...(await f.emit('harvest.batch.created', { n: i })));
    assert.equal((await f.owner.post(`/api/webhooks/${ep.id}/test`)).status, 202);
    await runSchedule();
    const firstDone = f.t.clock.now();
    f.t.clock.advance(3_600_000);
    const [late] = await f.emit('harvest.batch.created', { n: 'late' });
    await runSchedule();
    const lateDone = f.t.clock.now();
    assert.ok((await f.deliveries(ep.id)).every((d) => d.status === 'failed'));

    const recover = (json: Record<string, unknown>) =>
      f.owner.post(`/api/webhooks/${ep.id}/recover`, { json });
    const one = await recover({ since: new Date(lateDone - 1000).toISOString() });
    assert.equal(one.status, 202, one.text);
    assert.deepEqual(one.body, { data: { count: 1 } });
    // A window in the spec's own timestamp shape, up to a second after the first failures.
    const spec = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
    const rest = await recover({ since: spec(firstDone - 600_000), until: spec(firstDone + 1000) });
    assert.deepEqual(rest.body, { data: { count: 4 } }, 'the three events and the test message');
    assert.deepEqual((await recover({ since: spec(firstDone - 600_000) })).body, { data: { count: 0 } });

    up = true;
    const before = ep.received().length;
    assert.equal(await f.worker.drain(), 5);
    const sent = ep
      .received()
      .slice(before)
      .map((r) => r.headers['x-service-delivery']);
    assert.deepEqual(
      new Set(sent),
      new Set([...early, late, (await f.deliveries(ep.id)).find((d) => d.event_type === 'webhook.test').id]),
    );
    const log = await f.deliveries(ep.id);
    assert.ok(log.every((d) => d.status === 'succeeded'));
    assert.equal(
      log.find((d) => d.id === late).attempt_count,
      8,
      'seven failed attempts, then the recovered one',
    );
  });

  it('refuses bad windows, too many deliveries, and another tenant', async () => {
    const ep = await f.endpoint();
    const recover = (json: Record<string, unknown>) =>
      f.owner.post(`/api/webhooks/${ep.id}/recover`, { json });
    const now = f.t.clock.now();
    for (const [json, field] of [
      [{}, 'since'],
      [{ since: 'yesterday' }, 'since'],
      [{ since: new Date(now).toISOString(), until: '2026-13-01' }, 'until'],
      [{ since: new Date(now).toISOString(), until: new Date(now - 1000).toISOString() }, 'since'],
      [{ since: new Date(now + 60_000).toISOString() }, 'since'],
    ] as const) {
      const res = await recover(json);
      assert.equal(res.status, 422, JSON.stringify(json));
      assert.equal(res.body[0].meta.errors[0].field, field, res.text);
    }

    const endpointId = (
      await f.t.database.db
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('public_id', '=', ep.id)
        .executeTakeFirstOrThrow()
    ).id;
    const failed = Array.from({ length: 10_001 }, () => ({
      ...newDeliveryRow({
        endpointId,
        type: 'harvest.batch.created',
        workspaceId: f.farm.code,
        data: {},
        now,
      }),
      status: 'failed' as const,
      attempt_count: 7,
      next_attempt_at: null,
      finished_at: now - 1000,
    }));
    const scope = { db: f.t.database.db, tenantId: f.farm.id };
    for (let i = 0; i < failed.length; i += 500) await insertDeliveries(scope, failed.slice(i, i + 500));
    const tooMany = await recover({ since: new Date(now - 60_000).toISOString() });
    assert.equal(tooMany.status, 422, tooMany.text);
    assert.match(
      tooMany.body[0].meta.errors[0].message,
      /10[,.]?001 .*at most 10[,.]?000.*narrow the window/,
    );
    const narrower = await recover({
      since: new Date(now - 60_000).toISOString(),
      until: new Date(now - 2000).toISOString(),
    });
    assert.deepEqual(narrower.body, { data: { count: 0 } });
    const stillFailed = await f.t.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'failed')
      .executeTakeFirstOrThrow();
    assert.equal(Number(stillFailed.n), 10_001, 'nothing is queued when the window is refused');

    const staff = client(
      f.t.url,
      await loginToken(f.t.url, f.farm.code, await makeUser(f.t.database.db, f.farm, 'staff')),
    );
    assert.equal((await staff.post(`/api/webhooks/${ep.id}/pause`)).status, 403);
    assert.equal(
      (await staff.post(`/api/webhooks/${ep.id}/recover`, { json: { since: '2026-01-01' } })).status,
      403,
    );
    assert.equal((await staff.get(`/api/webhooks/${ep.id}/stats`)).status, 403);
    const other = await makeTenant(f.t.database.db);
    const otherOwner = client(f.t.url, await loginToken(f.t.url, other.code, other.owner));
    assert.equal((await otherOwner.post(`/api/webhooks/${ep.id}/pause`)).status, 404);
    const theirs = await otherOwner.post(`/api/webhooks/${ep.id}/recover`, { json: { since: '2026-01-01' } });
    assert.equal(theirs.status, 404);
    assert.equal((await otherOwner.get(`/api/webhooks/${ep.id}/stats`)).status, 404);
    assert.equal((await f.getEndpoint(ep.id)).status, 'active');
  });
});
