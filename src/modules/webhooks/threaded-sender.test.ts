// The threaded sender against a real HTTPS receiver: what the sender on the main thread does (the
// answers, the CA file, the public-address rule) done on a thread of its own; an attempt in flight
// when the thread stops ends as not sent, and the next send starts a thread again. The compiled
// service's thread loads the compiled module; the main thread's sender, should its module fail to
// load, answers why and loads it again at the next send.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { buildServiceIfStale } from '../../../scripts/test-builds.mjs';
import { REPO_ROOT } from '../../../test/support/processes.js';
import { type Receiver, startReceiver } from '../../../test/support/webhook-receiver.js';
import { createThreadedSender } from './threaded-sender.js';

let receiver: Receiver;
before(async () => {
  receiver = await startReceiver((request) => {
    if (request.path === '/busy') return { status: 503, headers: { 'retry-after': '7' }, body: 'later' };
    if (request.path === '/gone') return { status: 410, body: 'gone for good' };
    if (request.path === '/slow') return { delayMs: 5_000 };
    if (request.path === '/unhurried') return { delayMs: 300, body: 'in the end' };
    return { status: 200, body: `got ${request.body.length} bytes` };
  });
});
after(() => receiver.close());

const json = { 'content-type': 'application/json' };

/** A script run by Node with tsx, in a child process: its output and exit code. */
function runScript(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', script],
      { env: { ...process.env, ...env }, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The compiled service, dist/, made current first as the test run makes it at its start
 * (scripts/test-builds.mjs): normally it already is.
 */
async function compiledService(): Promise<string> {
  const done = await buildServiceIfStale(REPO_ROOT, `sender-${process.pid}`, new Set());
  assert.match(done, /^(dist\/ is current|compiled dist\/)/, done);
  return join(REPO_ROOT, 'dist');
}

/** A threaded sender that may dial the local receiver (unless told otherwise) and trusts its certificate. */
const threaded = (options: { timeoutMs?: number; allowPrivateHosts?: string[] } = {}) =>
  createThreadedSender({
    timeoutMs: options.timeoutMs ?? 5_000,
    allowPrivateHosts: options.allowPrivateHosts ?? ['127.0.0.1'],
    caFile: receiver.caFile,
  });

describe('threaded sender', () => {
  it('sends on its thread and answers each attempt with its own result', async () => {
    const sender = threaded();
    try {
      const before = receiver.requests.length;
      const [fine, busy, gone] = await Promise.all([
        sender.send(`${receiver.origin}/fine`, { ...json, 'webhook-id': 'msg_1' }, '{"n":1}'),
        sender.send(`${receiver.origin}/busy`, json, '{"n":2}'),
        sender.send(`${receiver.origin}/gone`, json, '{"n":3}'),
      ]);
      assert.equal(fine?.ok, true);
      assert.equal(fine?.statusCode, 200);
      assert.equal(fine?.responseExcerpt, 'got 7 bytes');
      assert.equal(fine?.error, null);
      assert.equal(busy?.ok, false);
      assert.equal(busy?.statusCode, 503);
      assert.equal(busy?.retryAfter, '7');
      assert.equal(gone?.statusCode, 410);
      assert.equal(gone?.error, 'receiver answered HTTP 410');
      const sent = receiver.requests.slice(before).find((r) => r.path === '/fine');
      assert.equal(sent?.headers['webhook-id'], 'msg_1');
      assert.equal(sent?.body, '{"n":1}');
    } finally {
      await sender.close();
    }
  });

  it('applies the public-address rule on its thread', async () => {
    const sender = threaded({ allowPrivateHosts: [] });
    try {
      const before = receiver.requests.length;
      const result = await sender.send(`${receiver.origin}/fine`, json, '{}');
      assert.equal(result.ok, false);
      assert.match(result.error ?? '', /refused to connect to 127\.0\.0\.1: not a public address/);
      assert.equal(receiver.requests.length, before, 'nothing reached the receiver');
    } finally {
      await sender.close();
    }
  });

  it('ends the attempts in flight as not sent when its thread stops, then sends on a new thread', async () => {
    const sender = threaded({ timeoutMs: 10_000 });
    try {
      const before = receiver.requests.length;
      const slow = sender.send(`${receiver.origin}/slow`, json, '{}');
      await receiver.waitForRequests(before + 1);
      const stoppedAt = performance.now();
      await sender.stopThread();
      const result = await slow;
      assert.equal(result.ok, false);
      assert.equal(result.statusCode, null);
      assert.equal(result.error, 'the sending thread stopped before the answer; not known to be sent');
      assert.ok(performance.now() - stoppedAt < 4_000, 'not left to wait for the receiver');
      const again = await sender.send(`${receiver.origin}/fine`, json, '{}');
      assert.equal(again.statusCode, 200);
    } finally {
      await sender.close();
    }
  });

  it('lets the attempts in flight end before its thread does when it is closed', async () => {
    const sender = threaded();
    const attempt = sender.send(`${receiver.origin}/unhurried`, json, '{}');
    await sender.close();
    const result = await attempt;
    assert.equal(result.statusCode, 200);
    assert.equal(result.responseExcerpt, 'in the end');
  });

  it('keeps a process that has nothing else to wait for alive until its thread has closed', async () => {
    // After its last answer the thread no longer holds the process; closing must hold it again, or
    // a worker's shutdown would end half-way (the database never closed).
    const script = `
      const { createThreadedSender } = await import(${JSON.stringify(new URL('./threaded-sender.ts', import.meta.url).href)});
      const sender = createThreadedSender({ timeoutMs: 5000, allowPrivateHosts: ['127.0.0.1'], caFile: process.env.CA });
      const result = await sender.send(process.env.URL, { 'content-type': 'application/json' }, '{}');
      await sender.close();
      console.log('closed after', result.statusCode);`;
    const { code, stdout } = await runScript(script, { CA: receiver.caFile, URL: `${receiver.origin}/fine` });
    assert.equal(stdout.trim(), 'closed after 200');
    assert.equal(code, 0);
  });

  it('sends from the compiled service too, its thread loading the compiled module', async () => {
    const module = pathToFileURL(
      join(await compiledService(), 'modules', 'webhooks', 'threaded-sender.js'),
    ).href;
    const { createThreadedSender: compiledSender } = (await import(module)) as {
      createThreadedSender: typeof createThreadedSender;
    };
    const sender = compiledSender({
      timeoutMs: 5_000,
      allowPrivateHosts: ['127.0.0.1'],
      caFile: receiver.caFile,
    });
    try {
      const result = await sender.send(`${receiver.origin}/fine`, json, '{"compiled":true}');
      assert.equal(result.error, null);
      assert.equal(result.statusCode, 200);
      assert.equal(result.responseExcerpt, 'got 17 bytes');
    } finally {
      await sender.close();
    }
  });

  it("on the main thread, answers why when the sender's module fails to load, and loads it at the next send", async () => {
    // A real failed load: a resolve hook in the child fails the sender module's first import.
    const hooks = `data:text/javascript,${encodeURIComponent(`
      let failed = false;
      export async function resolve(specifier, context, next) {
        if (!failed && specifier === './sender.js' && context.parentURL.includes('/threaded-sender.')) {
          failed = true;
          throw new Error('disk read failed');
        }
        return next(specifier, context);
      }`)}`;
    const script = `
      import { register } from 'node:module';
      register(${JSON.stringify(hooks)});
      const { createDeliverySender } = await import(${JSON.stringify(new URL('./threaded-sender.ts', import.meta.url).href)});
      const sender = createDeliverySender({ thread: false, timeoutMs: 5000, allowPrivateHosts: ['127.0.0.1'], caFile: process.env.CA });
      const first = await sender.send(process.env.URL, { 'content-type': 'application/json' }, '{}');
      const second = await sender.send(process.env.URL, { 'content-type': 'application/json' }, '{}');
      await sender.close();
      console.log(JSON.stringify([first, second]));`;
    const before = receiver.requests.length;
    const { code, stdout, stderr } = await runScript(script, {
      CA: receiver.caFile,
      URL: `${receiver.origin}/fine`,
    });
    assert.equal(code, 0, stderr);
    const [first, second] = JSON.parse(stdout) as {
      ok: boolean;
      statusCode: number | null;
      error: string | null;
    }[];
    assert.equal(first?.ok, false);
    assert.equal(first?.statusCode, null);
    assert.equal(first?.error, 'the sender could not be loaded (disk read failed); not sent');
    assert.equal(second?.statusCode, 200);
    assert.equal(receiver.requests.length, before + 1, 'only the second reached the receiver');
  });

  it('answers not sent once closed, and a CA file it cannot read stops it at the start', async () => {
    const sender = createThreadedSender({ timeoutMs: 5_000, allowPrivateHosts: ['127.0.0.1'] });
    await sender.close();
    const result = await sender.send(`${receiver.origin}/fine`, json, '{}');
    assert.equal(result.error, 'the worker is stopping; not sent');
    assert.throws(
      () =>
        createThreadedSender({
          timeoutMs: 5_000,
          allowPrivateHosts: [],
          caFile: '/nonexistent/ca.pem',
        }),
      /WEBHOOK_CA_FILE: cannot read \/nonexistent\/ca\.pem \(ENOENT\)/,
    );
  });
});
