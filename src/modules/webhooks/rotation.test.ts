// Sending with a rotated secret and with the owner's own headers, end to end: the real app and
// database, the real HTTPS receiver, messages verified as a receiver would (the standardwebhooks
// package with each secret, and the X-Service signatures by hand).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { type WebhookFixture, webhookFixture } from '../../../test/support/webhook-fixture.js';
import type { ReceivedRequest } from '../../../test/support/webhook-receiver.js';
import { REDACTED_VALUE } from './custom-headers.js';
import { newWebhookSecret } from './signing.js';

/** X-Service-Signature as a receiver computes it with `secret`. */
const serviceSignatureOf = (secret: string, req: ReceivedRequest) =>
  `sha256=${createHmac('sha256', secret).update(`${req.headers['x-service-timestamp']}.${req.body}`).digest('hex')}`;

const verifies = (secret: string, req: ReceivedRequest) => {
  try {
    new Webhook(secret).verify(req.body, req.headers);
    return true;
  } catch {
    return false;
  }
};

forEachDialect('webhook deliveries: secret rotation and custom headers', (database) => {
  const f = webhookFixture(database);
  let t: TestApp;
  let owner: WebhookFixture['owner'];
  let worker: WebhookFixture['worker'];
  before(() => {
    ({ t, owner, worker } = f);
  });
  const { endpoint, emit, deliveries, getEndpoint } = f;

  const rotate = async (id: string, seconds?: number) => {
    const res = await owner.post(
      `/api/webhooks/${id}/rotate-secret`,
      seconds === undefined ? {} : { json: { expire_previous_in_seconds: seconds } },
    );
    assert.equal(res.status, 200, res.text);
    return res.body.data as { secret: string; previous_secret_expires_at: string | null };
  };

  it('signs with both secrets until the previous one expires, then with the new one only', async () => {
    const ep = await endpoint();
    const old = ep.secret;
    const rotated = await rotate(ep.id, 2);
    assert.equal(rotated.previous_secret_expires_at, new Date(t.clock.now() + 2000).toISOString());

    await emit('harvest.batch.created', { harvest_record_id: 1 });
    assert.equal(await worker.drain(), 1);
    const during = ep.received()[0]!;
    const parts = during.headers['webhook-signature']!.split(' ');
    assert.equal(parts.length, 2);
    assert.ok(parts.every((p) => p.startsWith('v1,')));
    assert.ok(verifies(rotated.secret, during), 'the new secret verifies');
    assert.ok(verifies(old, during), 'the previous secret verifies');
    assert.ok(!verifies(newWebhookSecret(), during), 'another secret does not');
    // Each signature on its own: new first, as Standard Webhooks lists them.
    for (const [i, secret] of [rotated.secret, old].entries()) {
      const alone = { ...during.headers, 'webhook-signature': parts[i]! };
      assert.doesNotThrow(() => new Webhook(secret).verify(during.body, alone));
    }
    assert.equal(during.headers['x-service-signature'], serviceSignatureOf(rotated.secret, during));
    assert.equal(during.headers['x-service-signature-previous'], serviceSignatureOf(old, during));
    const [logged] = await deliveries(ep.id);
    assert.equal(
      logged.request.headers['X-Service-Signature-Previous'],
      during.headers['x-service-signature-previous'],
    );

    // Past the expiry: one signature, the new secret's.
    t.clock.advance(2000);
    assert.equal((await getEndpoint(ep.id)).previous_secret_expires_at, null);
    await emit('harvest.batch.created', { harvest_record_id: 2 });
    assert.equal(await worker.drain(), 1);
    const after = ep.received()[1]!;
    assert.equal(after.headers['webhook-signature']!.split(' ').length, 1);
    assert.ok(verifies(rotated.secret, after));
    assert.ok(!verifies(old, after), 'the expired secret no longer verifies');
    assert.equal(after.headers['x-service-signature'], serviceSignatureOf(rotated.secret, after));
    assert.equal(after.headers['x-service-signature-previous'], undefined);
  });

  it('a retry during the overlap is signed with both; after it with the new secret only', async () => {
    const ep = await endpoint((_req, n) => (n < 2 ? { status: 500 } : undefined));
    const old = ep.secret;
    const { secret } = await rotate(ep.id, 1);
    await emit('iot.alert.raised', { alert_id: 3 });
    await worker.drain();
    t.clock.advance(1000);
    await worker.drain();
    const [first, second] = ep.received();
    assert.ok(verifies(old, first!) && verifies(secret, first!));
    assert.ok(verifies(secret, second!) && !verifies(old, second!));
  });

  it('a second rotation during an overlap drops the oldest secret; 0 cuts the previous one at once', async () => {
    const ep = await endpoint();
    const first = ep.secret;
    const second = (await rotate(ep.id)).secret;
    const third = await rotate(ep.id, 3600);
    assert.equal(third.previous_secret_expires_at, new Date(t.clock.now() + 3_600_000).toISOString());
    await emit('iot.device.offline', { device_id: 1 });
    await worker.drain();
    const req = ep.received()[0]!;
    assert.equal(req.headers['webhook-signature']!.split(' ').length, 2);
    assert.ok(verifies(third.secret, req));
    assert.ok(verifies(second, req), 'the secret rotated out last still signs');
    assert.ok(!verifies(first, req), 'the one before it does not');
    assert.equal(req.headers['x-service-signature-previous'], serviceSignatureOf(second, req));

    const fourth = await rotate(ep.id, 0);
    assert.equal(fourth.previous_secret_expires_at, null);
    await emit('iot.device.offline', { device_id: 2 });
    await worker.drain();
    const cut = ep.received()[1]!;
    assert.ok(verifies(fourth.secret, cut));
    assert.ok(!verifies(third.secret, cut));
    assert.equal(cut.headers['webhook-signature']!.split(' ').length, 1);
    assert.equal(cut.headers['x-service-signature-previous'], undefined);
  });

  it("sends the owner's headers on every attempt, and keeps their values out of the log", async () => {
    const ep = await endpoint((_req, n) => (n === 0 ? { status: 503 } : undefined));
    const headers = { Authorization: 'Bearer gw-token-7', 'X-Farm-Gateway': 'north' };
    const set = await owner.put(`/api/webhooks/${ep.id}`, { json: { headers } });
    assert.equal(set.status, 200, set.text);
    await emit('harvest.batch.created', { harvest_record_id: 9 });
    await worker.drain();
    t.clock.advance(1000);
    await worker.drain();
    const received = ep.received();
    assert.equal(received.length, 2);
    for (const req of received) {
      assert.equal(req.headers.authorization, 'Bearer gw-token-7');
      assert.equal(req.headers['x-farm-gateway'], 'north');
      assert.equal(req.headers['user-agent'], 'Furrow-Webhooks/1.0');
      assert.ok(verifies(ep.secret, req));
    }
    const [d] = await deliveries(ep.id);
    assert.equal(d.status, 'succeeded');
    assert.equal(d.request.headers.Authorization, REDACTED_VALUE);
    assert.equal(d.request.headers['X-Farm-Gateway'], REDACTED_VALUE);
    const log = JSON.stringify(await deliveries(ep.id));
    assert.ok(!log.includes('gw-token-7'), 'the value is not in the delivery log');

    // Removed: the next message goes without them.
    assert.equal((await owner.put(`/api/webhooks/${ep.id}`, { json: { headers: {} } })).status, 200);
    await emit('harvest.batch.created', { harvest_record_id: 10 });
    await worker.drain();
    assert.equal(ep.received()[2]!.headers.authorization, undefined);
  });
});
