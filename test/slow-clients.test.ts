// Clients that open connections and never finish a request cannot hold them: headers and the whole
// request have deadlines (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS), and one process
// accepts at most HTTP_MAX_CONNECTIONS connections at once.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { request, startTestApp, type TestApp } from './support/app.js';
import { TestDatabase } from './support/databases.js';

/** Opens a raw connection and writes `data`; resolves with what the server answered once it closes. */
function openSlowClient(url: string, data: string): { socket: Socket; closed: Promise<string> } {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  let answer = '';
  socket.on('data', (d) => {
    answer += d;
  });
  socket.on('error', () => {});
  socket.on('connect', () => socket.write(data));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  return { socket, closed };
}

/** Resolves with the value, or with 'still open' after ms. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still open'> {
  return Promise.race([
    promise,
    new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms).unref()),
  ]);
}

describe('slow and idle clients', () => {
  const database = new TestDatabase('sqlite');
  let t: TestApp;
  const sockets: Socket[] = [];

  before(async () => {
    await database.create();
    t = await startTestApp(database.url, {
      env: { HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_MAX_CONNECTIONS: '40' },
    });
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await t.close();
    await database.drop();
  });

  it('disconnects clients that never finish their body or their headers, with a 408', async () => {
    const bodies = Array.from({ length: 15 }, () =>
      openSlowClient(
        t.url,
        'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tenant',
      ),
    );
    const headers = Array.from({ length: 15 }, () =>
      openSlowClient(t.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '),
    );
    sockets.push(...[...bodies, ...headers].map((c) => c.socket));
    // Well within the test's own patience (the defaults are 10 s and 30 s).
    const answers = await Promise.all([...bodies, ...headers].map((c) => within(c.closed, 8_000)));
    for (const answer of answers) {
      assert.notEqual(answer, 'still open');
      assert.match(String(answer), /^(HTTP\/1\.1 408|$)/);
    }
    assert.ok(answers.some((a) => String(a).startsWith('HTTP/1.1 408')));
    // In the error shape, with its code.
    for (const answer of answers.filter((a) => String(a).startsWith('HTTP/1.1 408'))) {
      const body = JSON.parse(String(answer).slice(String(answer).indexOf('\r\n\r\n') + 4));
      assert.deepEqual(body, [
        {
          meta: {
            status_code: 408,
            message: 'The request was not received in time',
            code: 'request_timeout',
          },
          data: [],
        },
      ]);
    }
    // Meanwhile and after, complete requests are served.
    assert.equal((await request(t.url, 'GET', '/healthz')).status, 200);
  });

  it('accepts at most HTTP_MAX_CONNECTIONS connections, and new ones again once they close', async () => {
    const idle = Array.from({ length: 40 }, () => openSlowClient(t.url, ''));
    sockets.push(...idle.map((c) => c.socket));
    await new Promise((r) => setTimeout(r, 200));
    const refused = openSlowClient(t.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    sockets.push(refused.socket);
    assert.equal(await within(refused.closed, 5_000), '', 'the connection past the cap is closed unanswered');
    for (const c of idle) c.socket.destroy();
    await Promise.all(idle.map((c) => c.closed));
    assert.equal((await request(t.url, 'GET', '/healthz')).status, 200);
  });
});
