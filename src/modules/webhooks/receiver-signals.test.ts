// What a receiver can tell the sender, end to end against the real HTTPS receiver: 410 Gone pauses
// the endpoint at once (owners are mailed), and Retry-After on 429 and 503 moves the next attempt
// later, never earlier than the schedule and never more than 24 hours ahead.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink.js';
import { DELAYS, type WebhookFixture, webhookFixture } from '../../../test/support/webhook-fixture.js';
import { MAX_RETRY_AFTER_MS } from './delivery-policy.js';

forEachDialect('webhook deliveries: receivers’ signals', (database) => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  const f = webhookFixture(database, { env: () => ({ SMTP_URL: sink.url }) });
  after(() => sink?.close());
  let t: TestApp;
  let farm: WebhookFixture['farm'];
  let owner: WebhookFixture['owner'];
  let worker: WebhookFixture['worker'];
  before(() => {
    ({ t, farm, owner, worker } = f);
  });
  const { endpoint, emit, deliveries, getEndpoint } = f;

  const pauseMails = () =>
    t.database.db
      .selectFrom('mail_outbox')
      .select(['kind', 'to_address', 'text_body'])
      .where('tenant_id', '=', farm.id)
      .where('kind', '=', 'webhook.endpoint.paused')
      .execute();

  it('pauses at once on 410 Gone, holds what follows, mails the owners, resumes on enable', async () => {
    assert.equal((await owner.put('/api/account', { json: { email: 'owner@farm.test' } })).status, 200);
    let gone = true;
    const ep = await endpoint(() => (gone ? { status: 410, body: 'gone' } : undefined));
    const other = await endpoint();
    const [first] = await emit('iot.alert.raised', { alert_id: 1 });
    // The alert to both, then webhook.endpoint.paused to the other one (it selects every kind).
    assert.equal(await worker.drain(), 3);
    assert.deepEqual(
      other.received().map((r) => r.headers['x-service-event']),
      ['iot.alert.raised', 'webhook.endpoint.paused'],
    );
    let state = await getEndpoint(ep.id);
    assert.equal(state.status, 'paused');
    assert.equal(state.paused_reason, 'gone');
    assert.equal(state.consecutive_failures, 0, 'one answer, not a streak');
    let [d] = await deliveries(ep.id);
    assert.equal(d.id, first);
    assert.equal(d.status, 'held', 'kept to be sent again once enabled');
    assert.equal(d.attempts[0].status_code, 410);
    assert.equal(d.next_attempt_at, null);

    const [second] = await emit('harvest.batch.created', { harvest_record_id: 2 });
    t.clock.advance(DELAYS.at(-1)!);
    assert.equal(await worker.drain(), 1, 'only the other endpoint gets it');
    assert.equal(ep.received().length, 1);
    assert.equal(other.received().length, 3);
    state = await getEndpoint(ep.id);
    assert.equal(state.held_count, 2);

    const mails = await pauseMails();
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.to_address, 'owner@farm.test');
    assert.match(mails[0]!.text_body, /Why: the receiver answered 410 Gone/);
    assert.match(mails[0]!.text_body, new RegExp(ep.path));

    gone = false;
    assert.equal((await owner.post(`/api/webhooks/${ep.id}/enable`)).status, 200);
    assert.equal(await worker.drain(), 2);
    assert.deepEqual(
      ep
        .received()
        .slice(1)
        .map((r) => r.headers['webhook-id'])
        .sort(),
      [first, second].sort(),
    );
    for (d of await deliveries(ep.id)) assert.equal(d.status, 'succeeded');
    assert.equal((await pauseMails()).length, 1, 'enabling mails nobody');
  });

  it('pauses on a test message answered 410 too; the test message itself fails', async () => {
    const ep = await endpoint(() => ({ status: 410 }));
    assert.equal((await owner.post(`/api/webhooks/${ep.id}/test`)).status, 202);
    assert.equal(await worker.drain(), 1);
    const state = await getEndpoint(ep.id);
    assert.equal(state.status, 'paused');
    assert.equal(state.paused_reason, 'gone');
    const [d] = await deliveries(ep.id);
    assert.equal(d.status, 'failed');
  });

  /** The delivery's next attempt after one answer, and whether nothing goes before it. */
  async function nextAttemptAfter(answer: { status: number; headers?: Record<string, string> }) {
    // One endpoint at a time: every endpoint subscribes to every event.
    await f.reset();
    const ep = await endpoint((_req, n) => (n === 0 ? answer : undefined));
    await emit('iot.alert.raised', { alert_id: 7 });
    const sentAt = t.clock.now();
    assert.equal(await worker.drain(), 1);
    const [d] = await deliveries(ep.id);
    assert.equal(d.status, 'retrying');
    return { ep, sentAt, next: Date.parse(d.next_attempt_at) };
  }

  it('waits as long as Retry-After in seconds asks on a 429', async () => {
    const { ep, sentAt, next } = await nextAttemptAfter({ status: 429, headers: { 'Retry-After': '120' } });
    assert.equal(next, sentAt + 120_000);
    t.clock.advance(DELAYS[0]!);
    assert.equal(await worker.drain(), 0, 'the schedule alone would retry now');
    t.clock.set(next - 1);
    assert.equal(await worker.drain(), 0);
    t.clock.set(next);
    assert.equal(await worker.drain(), 1);
    assert.equal(ep.received().length, 2);
  });

  it('waits until the HTTP date of Retry-After on a 503', async () => {
    const at = new Date(t.clock.now() + 300_000).toUTCString();
    const { next } = await nextAttemptAfter({ status: 503, headers: { 'Retry-After': at } });
    assert.equal(next, Date.parse(at));
  });

  it('keeps to the schedule for a Retry-After that asks for less, is bogus, or comes with another status', async () => {
    for (const answer of [
      { status: 429, headers: { 'Retry-After': '0' } },
      { status: 503, headers: { 'Retry-After': 'soon' } },
      { status: 429, headers: { 'Retry-After': new Date(t.clock.now() - 60_000).toUTCString() } },
      { status: 500, headers: { 'Retry-After': '120' } },
    ]) {
      const { sentAt, next } = await nextAttemptAfter(answer);
      assert.equal(next, sentAt + DELAYS[0]!, JSON.stringify(answer));
    }
  });

  it('never moves an attempt more than 24 hours ahead', async () => {
    const { sentAt, next } = await nextAttemptAfter({ status: 429, headers: { 'Retry-After': '200000' } });
    assert.equal(next, sentAt + MAX_RETRY_AFTER_MS);
    const far = new Date(t.clock.now() + 3 * MAX_RETRY_AFTER_MS).toUTCString();
    const dated = await nextAttemptAfter({ status: 503, headers: { 'Retry-After': far } });
    assert.equal(dated.next, dated.sentAt + MAX_RETRY_AFTER_MS);
  });
});
