// The sender against a receiver that accepts the connection and never completes a TLS handshake: it
// gives up after the connect timeout, not the whole timeout.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { type SilentReceiver, startSilentReceiver } from '../../../test/support/webhook-receiver.js';
import { AllowList } from './address-guard.js';
import { CONNECT_TIMEOUT_MS, createSender } from './sender.js';

let silent: SilentReceiver;
before(async () => {
  silent = await startSilentReceiver();
});
after(() => silent.close());

it('gives up on a receiver that never completes the TLS handshake after the connect timeout', async () => {
  const sender = createSender({
    timeoutMs: 8000,
    connectTimeoutMs: 300,
    allowList: new AllowList(['127.0.0.1']),
  });
  try {
    const result = await sender.send(`${silent.origin}/hook`, { 'content-type': 'application/json' }, '{}');
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, null);
    assert.equal(result.error, 'no connection within 300 ms (TCP connect and TLS handshake)');
    assert.equal(silent.accepted, 1, 'the TCP connection was made');
    // Given up at the connect timeout (undici checks it about twice a second), long before the 8 s.
    assert.ok(result.durationMs < 4000, `${result.durationMs} ms`);
  } finally {
    await sender.close();
  }
});

it('never waits for a connection longer than the whole timeout', async () => {
  assert.ok(CONNECT_TIMEOUT_MS < 10_000, 'shorter than the default WEBHOOK_TIMEOUT_MS');
  const sender = createSender({ timeoutMs: 400, allowList: new AllowList(['127.0.0.1']) });
  try {
    const result = await sender.send(`${silent.origin}/hook`, { 'content-type': 'application/json' }, '{}');
    assert.equal(result.error, 'no connection within 400 ms (TCP connect and TLS handshake)');
  } finally {
    await sender.close();
  }
});
