import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { signatureVector } from '../../../test/support/vectors.js';
import { decryptSecret, encryptSecret, newWebhookSecret, signPayload } from './signing.js';

const vector = signatureVector;

describe('webhook signing', () => {
  it('reproduces the worked example of the README (vectors/signature.json)', () => {
    const type = (JSON.parse(vector.body) as { type: string }).type;
    const headers = signPayload(
      vector.secret,
      { id: vector.id, eventType: type, body: vector.body },
      Number(vector.timestamp),
    );
    assert.deepEqual(headers, vector.expected_headers);
  });

  it('is verified by the standardwebhooks package, as a receiver would', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'msg_x', type: 'iot.device.offline', data: { device_id: 1 } });
    const now = Math.floor(Date.now() / 1000);
    const headers = signPayload(secret, { id: 'msg_x', eventType: 'iot.device.offline', body }, now);
    const receiver = new Webhook(secret);
    assert.deepEqual(receiver.verify(body, headers), JSON.parse(body));
    assert.throws(() => receiver.verify(`${body} `, headers));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
  });

  it('signs with both secrets during a rotation overlap, each verifiable on its own', () => {
    const [current, previous, other] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ id: 'msg_y', type: 'iot.alert.raised', data: { alert_id: 1 } });
    const now = Math.floor(Date.now() / 1000);
    const message = { id: 'msg_y', eventType: 'iot.alert.raised', body };
    const headers = signPayload(current, message, now, previous);
    const alone = signPayload(current, message, now);
    const before = signPayload(previous, message, now);
    assert.equal(
      headers['webhook-signature'],
      `${alone['webhook-signature']} ${before['webhook-signature']}`,
    );
    assert.equal(headers['X-Service-Signature'], alone['X-Service-Signature']);
    assert.equal(headers['X-Service-Signature-Previous'], before['X-Service-Signature']);
    for (const secret of [current, previous]) {
      assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    }
    assert.throws(() => new Webhook(other).verify(body, headers));
    assert.equal('X-Service-Signature-Previous' in alone, false);
  });

  it('makes secrets of whsec_ and 32 random bytes', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.notEqual(secret, newWebhookSecret());
  });

  it('encrypts secrets at rest, bound to their endpoint', () => {
    const key = randomBytes(32);
    const secret = newWebhookSecret();
    const stored = encryptSecret(key, secret, 'ep_1');
    assert.ok(!stored.includes(secret.slice(6, 20)));
    assert.notEqual(stored, encryptSecret(key, secret, 'ep_1'));
    assert.equal(decryptSecret(key, stored, 'ep_1'), secret);
    assert.throws(() => decryptSecret(key, stored, 'ep_2'));
    assert.throws(() => decryptSecret(randomBytes(32), stored, 'ep_1'));
  });

  it('accepts only a full 16-byte authentication tag', () => {
    const key = randomBytes(32);
    const iv = randomBytes(12);
    // A 4-byte tag over an empty secret: a 32-bit forgery target, were short tags accepted.
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 4 });
    cipher.setAAD(Buffer.from('ep_1', 'utf8'));
    const body = Buffer.concat([cipher.update(''), cipher.final()]);
    const short = `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    assert.throws(() => decryptSecret(key, short, 'ep_1'), /too short/);
    const full = encryptSecret(key, newWebhookSecret(), 'ep_1');
    const raw = Buffer.from(full.slice(3), 'base64');
    const truncated = `v1:${raw.subarray(0, 28).toString('base64')}`;
    assert.throws(() => decryptSecret(key, truncated, 'ep_1'), /too short/);
  });
});
