// Several real worker processes on one PostgreSQL database and one HTTPS receiver: every
// delivery arrives, none twice, and the hourly roll-up the workers add to concurrently counts each
// once; a worker killed mid-batch loses nothing.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { emitEvent } from '../src/modules/webhooks/outbox.js';
import { systemClock } from '../src/platform/clock.js';
import { client, startTestApp, TEST_SECRET_KEY_HEX, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, type TestTenant } from './support/factories.js';
import { freePort, type ServerProcess, startFurrow, startFurrowWorker } from './support/processes.js';
import { type Receiver, startReceiver } from './support/webhook-receiver.js';

forEachDialect('webhook worker processes', (database) => {
  // SQLite is one process by design; several workers sharing a database is the PostgreSQL set-up.
  if (database.dialect !== 'postgres') return;

  let t: TestApp;
  let receiver: Receiver;
  let farm: TestTenant;
  let owner: ReturnType<typeof client>;
  const workers: ServerProcess[] = [];

  before(async () => {
    receiver = await startReceiver();
    t = await startTestApp(database.url, {
      env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1', WEBHOOK_CA_FILE: receiver.caFile },
    });
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await t.close();
    await receiver.close();
  });

  const startWorkers = async (count: number) => {
    const env = {
      DATABASE_URL: database.url,
      FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX,
      WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      WEBHOOK_CA_FILE: receiver.caFile,
      LOG_LEVEL: 'info',
    };
    const started = await Promise.all(
      Array.from({ length: count }, () => startFurrowWorker([], { env, timeoutMs: 60_000 })),
    );
    workers.push(...started);
    return started;
  };

  async function endpointAt(path: string): Promise<string> {
    const res = await owner.post('/api/webhooks', {
      json: { url: `${receiver.origin}${path}`, events: ['harvest.batch.created'] },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id;
  }

  /** Emits `count` events in transactions of 100, four transactions at a time, as event sources would. */
  async function emitMany(count: number): Promise<string[]> {
    const batches: number[][] = [];
    for (let start = 0; start < count; start += 100) {
      batches.push(Array.from({ length: Math.min(100, count - start) }, (_, i) => start + i));
    }
    const ids: string[][] = [];
    for (let i = 0; i < batches.length; i += 4) {
      const done = await Promise.all(
        batches.slice(i, i + 4).map((batch) =>
          t.database.db.transaction().execute(async (trx) => {
            const out: string[] = [];
            for (const n of batch) {
              out.push(
                ...(await emitEvent(
                  { clock: systemClock },
                  { db: trx, tenantId: farm.id },
                  'harvest.batch.created',
                  {
                    harvest_record_id: n,
                  },
                )),
              );
            }
            return out;
          }),
        ),
      );
      ids.push(...done);
    }
    return ids.flat();
  }

  async function waitUntilQueueEmpty(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = await t.database.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['pending', 'retrying', 'held'])
        .executeTakeFirstOrThrow();
      if (Number(row.n) === 0) return;
      if (Date.now() > deadline) throw new Error(`${row.n} deliveries still queued`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** The roll-up summed over an endpoint's hours, as the stats read it. */
  async function rolledUp(endpointId: string) {
    const stats = (await owner.get(`/api/webhooks/${endpointId}/stats`)).body.data;
    const row = await t.database.db
      .selectFrom('webhook_delivery_hours as h')
      .innerJoin('webhook_endpoints as e', (join) =>
        join.onRef('e.tenant_id', '=', 'h.tenant_id').onRef('e.id', '=', 'h.endpoint_id'),
      )
      .select((eb) => [
        eb.fn.sum<string>('h.attempts').as('attempts'),
        eb.fn.sum<string>('h.succeeded').as('succeeded'),
      ])
      .where('e.public_id', '=', endpointId)
      .executeTakeFirstOrThrow();
    return { succeeded: stats.succeeded, failed: stats.failed, attempts: Number(row.attempts) };
  }

  const countsById = (path: string) => {
    const counts = new Map<string, number>();
    for (const r of receiver.requests.filter((q) => q.path === path)) {
      const id = r.headers['x-service-delivery']!;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };

  it('three workers deliver 2,000 messages to one receiver, each exactly once, counted once', async (ctx) => {
    const bulk = await endpointAt('/bulk');
    const started = await startWorkers(3);
    ctx.after(() => Promise.all(started.map((w) => w.stop('SIGKILL'))));
    const startedAt = Date.now();
    const ids = await emitMany(2000);
    ctx.diagnostic(`emitted in ${Date.now() - startedAt} ms`);
    await receiver.waitForRequests(2000, 180_000);
    ctx.diagnostic(`delivered in ${Date.now() - startedAt} ms`);
    await waitUntilQueueEmpty(60_000);
    const counts = countsById('/bulk');
    assert.equal(counts.size, 2000);
    assert.deepEqual(new Set(counts.keys()), new Set(ids));
    assert.deepEqual(
      [...counts.values()].filter((n) => n !== 1),
      [],
      'no delivery twice',
    );
    const failed = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('public_id')
      .where('status', '!=', 'succeeded')
      .execute();
    assert.deepEqual(failed, []);
    assert.deepEqual(await rolledUp(bulk), { succeeded: 2000, failed: 0, attempts: 2000 });
    for (const w of started) assert.equal(await w.stop('SIGTERM'), 0, w.output());
    workers.length = 0;
  });

  it('a worker killed with SIGKILL mid-batch loses nothing; only its in-flight ones arrive twice', async (ctx) => {
    await t.database.db.deleteFrom('webhook_endpoints').execute();
    receiver.script = () => ({ delayMs: 20 });
    await endpointAt('/kill');
    // The batch is queued first, so the victim is sure to be mid-batch when it is killed.
    const ids = await emitMany(600);
    const before = receiver.requests.length;
    const started = await startWorkers(3);
    ctx.after(() => Promise.all(started.map((w) => w.stop('SIGKILL'))));
    const [victim, ...others] = started;
    await receiver.waitForRequests(before + 100, 120_000);
    victim!.child.kill('SIGKILL');
    await victim!.stop();
    await waitUntilQueueEmpty(120_000);
    const counts = countsById('/kill');
    assert.deepEqual(new Set(counts.keys()), new Set(ids), 'every delivery arrived');
    const twice = [...counts.values()].filter((n) => n > 1);
    assert.ok(twice.every((n) => n === 2));
    // At most what the killed worker had in flight (its global cap) arrives a second time.
    assert.ok(twice.length <= 32, `${twice.length} deliveries arrived twice`);
    for (const w of others) assert.equal(await w.stop('SIGTERM'), 0, w.output());
    workers.length = 0;
  });

  it('a worker stopped with SIGTERM mid-batch finishes and records its attempts: none twice', async (ctx) => {
    await t.database.db.deleteFrom('webhook_endpoints').execute();
    receiver.script = () => ({ delayMs: 200 });
    const term = await endpointAt('/term');
    const ids = await emitMany(300);
    const before = receiver.requests.length;
    const started = await startWorkers(2);
    ctx.after(() => Promise.all(started.map((w) => w.stop('SIGKILL'))));
    const [stopping, other] = started;
    await receiver.waitForRequests(before + 30, 120_000);
    assert.equal(await stopping!.stop('SIGTERM'), 0, stopping!.output());
    await waitUntilQueueEmpty(120_000);
    const counts = countsById('/term');
    assert.deepEqual(new Set(counts.keys()), new Set(ids));
    assert.deepEqual(
      [...counts.values()].filter((n) => n !== 1),
      [],
    );
    assert.deepEqual(await rolledUp(term), { succeeded: 300, failed: 0, attempts: 300 });
    assert.equal(await other!.stop('SIGTERM'), 0);
  });

  it('serve --role api only answers the API; --role worker only delivers; all does both', async (ctx) => {
    await t.database.db.deleteFrom('webhook_endpoints').execute();
    receiver.script = () => undefined;
    const env = {
      DATABASE_URL: database.url,
      FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX,
      WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      WEBHOOK_CA_FILE: receiver.caFile,
    };
    const api = await startFurrow(['serve', '--role', 'api'], { env });
    ctx.after(() => api.stop('SIGKILL'));
    const apiOwner = client(api.url, await loginToken(api.url, farm.code, farm.owner));
    const created = await apiOwner.post('/api/webhooks', {
      json: { url: `${receiver.origin}/roles`, events: ['*'] },
    });
    assert.equal(created.status, 201, created.text);
    const test = await apiOwner.post(`/api/webhooks/${created.body.data.id}/test`);
    assert.equal(test.status, 202);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(
      receiver.requests.filter((r) => r.path === '/roles').length,
      0,
      'the api role sends nothing',
    );

    const port = await freePort();
    const worker = await startFurrowWorker([], { env: { ...env, PORT: String(port) }, timeoutMs: 60_000 });
    ctx.after(() => worker.stop('SIGKILL'));
    const [received] = await receiver
      .waitForRequests(receiver.requests.length + 1, 60_000)
      .then((all) => all.filter((r) => r.path === '/roles'));
    assert.equal(received?.headers['x-service-delivery'], test.body.data.id);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'the worker role listens on no port');
    assert.equal(await worker.stop('SIGTERM'), 0);
    assert.equal(await api.stop('SIGTERM'), 0);

    const all = await startFurrow(['serve'], { env });
    ctx.after(() => all.stop('SIGKILL'));
    const allOwner = client(all.url, await loginToken(all.url, farm.code, farm.owner));
    const again = await allOwner.post(`/api/webhooks/${created.body.data.id}/test`);
    await receiver.waitForRequests(receiver.requests.length + 1, 60_000);
    assert.equal(receiver.requests.at(-1)?.headers['x-service-delivery'], again.body.data.id);
    assert.equal(await all.stop('SIGTERM'), 0);
  });
});
