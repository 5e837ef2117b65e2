// The sender against a receiver that accepts the connection and never completes a TLS handshake: it
// gives up after the connect timeout, not the whole timeout; and against one that answers at once
// and then sends its body a byte at a time: the whole attempt still ends at the timeout.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import {
  type SilentReceiver,
  startSilentReceiver,
  testCertificate,
} from '../../../test/support/webhook-receiver.js';
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

it("ends an attempt at the timeout when the answer's body trickles in", async () => {
  const cert = testCertificate();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer(
    { cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile) },
    (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      // A byte every 20 ms: each is well within any idle timeout, the whole never ends.
      const timer = setInterval(() => res.write('x'), 20);
      timers.add(timer);
      res.on('close', () => clearInterval(timer));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sender = createSender({
    timeoutMs: 600,
    allowList: new AllowList(['127.0.0.1']),
    caFile: cert.caFile,
  });
  try {
    const { port } = server.address() as AddressInfo;
    const result = await sender.send(`https://127.0.0.1:${port}/hook`, {}, '{}');
    assert.equal(result.ok, false);
    assert.equal(result.error, 'timed out after 600 ms');
    assert.ok(result.durationMs >= 550 && result.durationMs < 3000, `${result.durationMs} ms`);
  } finally {
    await sender.close();
    for (const timer of timers) clearInterval(timer);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
