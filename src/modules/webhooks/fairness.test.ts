// Fair shares of the delivery worker: a tenant whose receivers never answer costs another tenant
// nothing, one tenant holds at most half of a worker's slots and one endpoint a quarter, and Send
// test is limited per endpoint. The real worker and database, real sockets, a real HTTPS receiver.
import assert from 'node:assert/strict';
import { after, afterEach, before, it } from 'node:test';
import { sql } from 'kysely';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, type TestTenant } from '../../../test/support/factories.js';
import {
  type Receiver,
  type SilentReceiver,
  startReceiver,
  startSilentReceiver,
} from '../../../test/support/webhook-receiver.js';
import { systemClock } from '../../platform/clock.js';
import { type DatabaseHandle, openDatabase } from '../../platform/db/database.js';
import { claimDueDeliveries } from './delivery-claim.js';
import { nextDueAt } from './delivery-queue.js';
import { emitEvent, newDeliveryRow } from './outbox.js';
import { insertDeliveries } from './webhook.repository.js';
import { createDeliveryWorker, GLOBAL_CONCURRENCY, WORKER_POOL_SIZE } from './worker.js';

const TIMEOUT_MS = 2000;

forEachDialect('fair delivery', (database) => {
  let t: TestApp;
  let receiver: Receiver;
  const silent: SilentReceiver[] = [];

  before(async () => {
    receiver = await startReceiver();
    t = await startTestApp(database.url, {
      env: {
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        WEBHOOK_CA_FILE: receiver.caFile,
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
  });
  afterEach(async () => {
    await t.database.db.deleteFrom('webhook_endpoints').execute();
    await Promise.all(silent.splice(0).map((s) => s.close()));
    receiver.script = () => undefined;
    t.clock.set(Date.now());
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  /** A tenant with its owner's API client. */
  async function tenant(): Promise<TestTenant & { api: ReturnType<typeof client> }> {
    const made = await makeTenant(t.database.db);
    return { ...made, api: client(t.url, await loginToken(t.url, made.code, made.owner)) };
  }

  async function endpoint(owner: { api: ReturnType<typeof client> }, url: string) {
    const res = await owner.api.post('/api/webhooks', { json: { url, events: ['*'] } });
    assert.equal(res.status, 201, res.text);
    const row = await t.database.db
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('public_id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    return { publicId: res.body.data.id as string, id: row.id };
  }

  async function deadEndpoints(owner: { api: ReturnType<typeof client> }, count: number) {
    const receivers = await Promise.all(Array.from({ length: count }, () => startSilentReceiver()));
    silent.push(...receivers);
    for (const r of receivers) await endpoint(owner, `${r.origin}/hook`);
    return receivers;
  }

  /** Queues a delivery for each [endpoint, due time], created at `now`. */
  const queue = (tenantId: number, now: number, due: [endpointId: number, at: number][]) =>
    insertDeliveries(
      { db: t.database.db, tenantId },
      due.map(([endpointId, at]) => ({
        ...newDeliveryRow({ endpointId, type: 'harvest.batch.created', workspaceId: 'x', data: {}, now }),
        next_attempt_at: at,
      })),
    );

  /** `count` events of the tenant, in one transaction: one delivery per endpoint each. */
  const emit = (tenantId: number, count: number) =>
    t.database.db.transaction().execute(async (trx) => {
      for (let n = 0; n < count; n++) {
        await emitEvent({ clock: t.clock }, { db: trx, tenantId }, 'harvest.batch.created', { n });
      }
    });

  /** The slots and fair shares of a worker, as README and docs/decisions.md state them: the same on both databases. */
  const shares = {
    slots: GLOBAL_CONCURRENCY,
    perTenant: Math.floor(GLOBAL_CONCURRENCY / 2),
    perEndpoint: Math.floor(GLOBAL_CONCURRENCY / 4),
  };

  const workerOn = (handle: DatabaseHandle, clock = systemClock) =>
    createDeliveryWorker({ database: handle, clock, config: t.config, secretKey: t.config.secretKey! });

  async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const unattempted = async (tenantId: number) => {
    const row = await t.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('attempt_count', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it("tenants whose receivers never answer do not hold up another tenant's message", async () => {
    const noisy = await tenant();
    const alsoNoisy = await tenant();
    const quiet = await tenant();
    const dead = [...(await deadEndpoints(noisy, 4)), ...(await deadEndpoints(alsoNoisy, 2))];
    await endpoint(quiet, `${receiver.origin}/quiet`);
    // 96 and 48 deliveries, all older than the quiet tenant's.
    await emit(noisy.id, 24);
    await emit(alsoNoisy.id, 24);
    const noisyTotal = 144;
    const attemptsStarted = () => dead.reduce((sum, r) => sum + r.accepted, 0);
    let startedWhenQuietArrived: number | undefined;
    receiver.script = (req) => {
      if (req.path === '/quiet') startedWhenQuietArrived ??= attemptsStarted();
      return undefined;
    };
    // The worker as `furrow serve` runs it on this database: its one SQLite connection, or on
    // PostgreSQL a pool of WORKER_POOL_SIZE.
    const handle =
      database.dialect === 'postgres'
        ? openDatabase(database.url, { maxConnections: WORKER_POOL_SIZE })
        : t.database;
    const worker = workerOn(handle);
    const { slots } = shares;
    const before = receiver.requests.length;
    await worker.start();
    try {
      // The first takes half of the slots, the second half of what is left.
      await until(() => attemptsStarted() >= (slots * 3) / 4, 'the noisy tenants have taken their shares');
      await emit(quiet.id, 1);
      await receiver.waitForRequests(before + 1, 20_000);
      assert.ok(startedWhenQuietArrived !== undefined);
      // Ordering, not durations: the quiet tenant's message arrived while the noisy tenants' queues
      // were still mostly untouched (without fair shares it comes after every noisy attempt).
      assert.ok(
        startedWhenQuietArrived < noisyTotal / 2,
        `the quiet message arrived after ${startedWhenQuietArrived} of ${noisyTotal} noisy attempts`,
      );
      assert.ok((await unattempted(noisy.id)) + (await unattempted(alsoNoisy.id)) >= noisyTotal / 2);
    } finally {
      await worker.stop();
      if (handle !== t.database) await handle.close();
    }
  });

  it('holds a tenant to half of the slots and an endpoint to a quarter, however many receivers it has', async () => {
    const noisy = await tenant();
    const dead = await deadEndpoints(noisy, 6);
    await emit(noisy.id, 10);
    const worker = workerOn(t.database);
    const { slots, perTenant, perEndpoint } = shares;
    const open = () => dead.reduce((sum, r) => sum + r.open, 0);
    await worker.start();
    try {
      await until(() => open() >= perTenant, 'the tenant has taken its share');
      // Time for any further claim to happen: none may.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(open(), perTenant, `${open()} attempts in flight of ${slots} slots`);
      assert.ok(perTenant < slots);
      for (const r of dead) assert.ok(r.maxOpen <= perEndpoint, `${r.maxOpen} to one endpoint`);
    } finally {
      await worker.stop();
    }
  });

  it('holds an endpoint whose receiver stopped answering to one attempt at a time, and gives its share back at its first answer', async () => {
    const owner = await tenant();
    const dead = await startSilentReceiver();
    silent.push(dead);
    const ep = await endpoint(owner, `${dead.origin}/hook`);
    await emit(owner.id, 40);
    // Attempts to /back answer after 100 ms; how many overlap is counted here.
    let open = 0;
    let maxOpen = 0;
    receiver.script = (req) => {
      if (req.path !== '/back') return undefined;
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      setTimeout(() => {
        open -= 1;
      }, 100);
      return { delayMs: 100 };
    };
    // A short timeout: each attempt to the silent receiver ends a second after it began.
    const worker = createDeliveryWorker({
      database: t.database,
      clock: systemClock,
      config: { ...t.config, webhookTimeoutMs: 1000 },
      secretKey: t.config.secretKey!,
    });
    const { perEndpoint } = shares;
    assert.ok(perEndpoint > 1);
    await worker.start();
    try {
      // Its first attempts take the endpoint's share at once: the receiver's silence is not known yet.
      await until(() => dead.accepted >= perEndpoint, 'the first attempts have begun');
      // Once they have timed out, one attempt at a time: each begins after the one before has timed
      // out, where the share would begin several together.
      await until(() => dead.accepted >= perEndpoint + 4, 'four more attempts have begun', 20_000);
      const next = dead.acceptedAt.slice(perEndpoint, perEndpoint + 4);
      const gaps = next.slice(1).map((at, i) => Math.round(at - next[i]!));
      assert.ok(
        gaps.every((gap) => gap >= 700),
        `attempts to a receiver that does not answer began ${gaps.join(', ')} ms apart`,
      );

      // The receiver is back (here at another address): its first answer gives the share back.
      const moved = await owner.api.put(`/api/webhooks/${ep.publicId}`, {
        json: { url: `${receiver.origin}/back` },
      });
      assert.equal(moved.status, 200, moved.text);
      await until(() => maxOpen > 1, 'attempts to the receiver overlap again');
      assert.ok(maxOpen <= perEndpoint, `${maxOpen} in flight to one endpoint`);
    } finally {
      await worker.stop();
    }
  });

  for (const atOnce of [false, true]) {
    it(`reaches other tenants' due deliveries behind thousands of one endpoint's, each endpoint in order${atOnce ? ' (tried in one statement first)' : ''}`, async () => {
      const busy = await tenant();
      const other = await tenant();
      const backlog = await endpoint(busy, `${receiver.origin}/backlog`);
      const second = await endpoint(busy, `${receiver.origin}/second`);
      const third = await endpoint(busy, `${receiver.origin}/third`);
      const theirs = await endpoint(other, `${receiver.origin}/theirs`);
      // Due times in this order: 3,000 of one endpoint, then 20 each of two more, then one of another tenant.
      const start = t.clock.now() - 10_000;
      let at = start;
      const rows = (endpointId: number, count: number) =>
        Array.from({ length: count }, () => ({
          ...newDeliveryRow({
            endpointId,
            type: 'harvest.batch.created',
            workspaceId: 'x',
            data: {},
            now: at,
          }),
          next_attempt_at: at++,
        }));
      const insert = async (tenantId: number, all: ReturnType<typeof rows>) => {
        for (let i = 0; i < all.length; i += 500) {
          await insertDeliveries({ db: t.database.db, tenantId }, all.slice(i, i + 500));
        }
      };
      await insert(busy.id, rows(backlog.id, 3000));
      await insert(busy.id, [...rows(second.id, 20), ...rows(third.id, 20)]);
      await insert(other.id, rows(theirs.id, 1));

      const firstOf = async (endpointId: number, count: number) =>
        (
          await t.database.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('endpoint_id', '=', endpointId)
            .orderBy('next_attempt_at')
            .orderBy('id')
            .limit(count)
            .execute()
        ).map((r) => r.id);
      const options = {
        now: t.clock.now(),
        leaseMs: 60_000,
        owner: 'test-worker',
        limit: 16,
        perEndpointLimit: 4,
        perTenantLimit: 8,
        atOnce,
      };
      const first = await claimDueDeliveries(t.database.db, { ...options, inFlightByEndpoint: new Map() });
      const ids = (endpointId: number) =>
        first.deliveries.filter((d) => d.endpointId === endpointId).map((d) => d.id);
      // The busy tenant gets its 8 (4 each from the two oldest endpoints, their oldest), the other tenant
      // its one; the third endpoint waits for its tenant's share.
      assert.deepEqual(ids(backlog.id), await firstOf(backlog.id, 4));
      assert.deepEqual(ids(second.id), await firstOf(second.id, 4));
      assert.deepEqual(ids(third.id), []);
      assert.deepEqual(ids(theirs.id), await firstOf(theirs.id, 1));
      assert.equal(first.capped, true);

      // While those are in flight, nothing more of the busy tenant is claimed.
      const count = (key: (d: (typeof first.deliveries)[number]) => number) => {
        const counts = new Map<number, number>();
        for (const d of first.deliveries) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
        return counts;
      };
      const again = await claimDueDeliveries(t.database.db, {
        ...options,
        limit: options.limit - first.deliveries.length,
        inFlightByEndpoint: count((d) => d.endpointId),
        inFlightByTenant: count((d) => d.tenantId),
        inFlightIds: first.deliveries.map((d) => d.id),
      });
      assert.deepEqual(again.deliveries, []);
      assert.equal(again.capped, true);
    });
  }

  it('claims a shallow queue as the shares allow, and answers when the next delivery falls due', async () => {
    const owner = await tenant();
    const full = await endpoint(owner, `${receiver.origin}/full`);
    const open = await endpoint(owner, `${receiver.origin}/open`);
    const now = t.clock.now();
    await queue(owner.id, now, [
      [full.id, now - 2],
      [open.id, now - 1],
      [open.id, now + 5_000],
    ]);
    const options = {
      now,
      leaseMs: 60_000,
      owner: 'test-worker',
      limit: 8,
      perEndpointLimit: 2,
      atOnce: true,
    };
    // The first endpoint has its two in flight here: its due delivery waits, and the claim says so.
    const first = await claimDueDeliveries(t.database.db, {
      ...options,
      inFlightByEndpoint: new Map([[full.id, 2]]),
      inFlightByTenant: new Map([[owner.id, 2]]),
    });
    assert.deepEqual(
      first.deliveries.map((d) => d.endpointId),
      [open.id],
    );
    assert.equal(first.capped, true);
    assert.equal(first.nextDueAt, now + 5_000);
    // With room again, the waiting one goes; the one due later is the next due time.
    const second = await claimDueDeliveries(t.database.db, {
      ...options,
      inFlightByEndpoint: new Map([[open.id, 1]]),
      inFlightByTenant: new Map([[owner.id, 1]]),
      inFlightIds: first.deliveries.map((d) => d.id),
    });
    assert.deepEqual(
      second.deliveries.map((d) => d.endpointId),
      [full.id],
    );
    assert.equal(second.capped, false);
    assert.equal(second.nextDue ?? (await nextDueAt(t.database.db, now)), now + 5_000);
    // Nothing due now: nothing leased, and the same next due time (what the worker sleeps until).
    const third = await claimDueDeliveries(t.database.db, {
      ...options,
      inFlightByEndpoint: new Map([
        [open.id, 1],
        [full.id, 1],
      ]),
      inFlightByTenant: new Map([[owner.id, 2]]),
      inFlightIds: [...first.deliveries, ...second.deliveries].map((d) => d.id),
    });
    assert.deepEqual(third.deliveries, []);
    assert.equal(third.capped, false);
    assert.equal(third.nextDue ?? (await nextDueAt(t.database.db, now)), now + 5_000);
  });

  it('sends what the one statement leased when the claim for the rest fails', {
    skip: database.dialect !== 'postgres' && 'the one-statement claim is PostgreSQL’s',
  }, async () => {
    const owner = await tenant();
    const first = await endpoint(owner, `${receiver.origin}/first`);
    const refused = await endpoint(owner, `${receiver.origin}/refused`);
    const now = t.clock.now();
    await queue(owner.id, now, [
      [first.id, now - 2],
      [refused.id, now - 1],
    ]);
    // The second endpoint's deliveries cannot be leased: the claim's second part fails there.
    const db = t.database.db;
    await sql`create function refuse_lease() returns trigger language plpgsql as $$
      begin
        if new.endpoint_id = ${sql.lit(refused.id)} and new.lease_owner is distinct from old.lease_owner then
          raise exception 'lease refused';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger refuse_lease before update on webhook_deliveries
      for each row execute function refuse_lease()`.execute(db);
    try {
      // One endpoint's share is one delivery: the statement takes one, and more may be due.
      const claim = await claimDueDeliveries(db, {
        now,
        leaseMs: 60_000,
        owner: 'test-worker',
        limit: 4,
        perEndpointLimit: 1,
        inFlightByEndpoint: new Map(),
        atOnce: true,
      });
      assert.deepEqual(
        claim.deliveries.map((d) => d.endpointId),
        [first.id],
      );
      assert.match(String(claim.error), /lease refused/);
      const leases = await db
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', 'lease_owner'])
        .where('endpoint_id', 'in', [first.id, refused.id])
        .orderBy('endpoint_id')
        .execute();
      assert.deepEqual(leases, [
        { endpoint_id: first.id, lease_owner: claim.deliveries[0]!.leaseToken },
        { endpoint_id: refused.id, lease_owner: null },
      ]);
    } finally {
      await sql`drop trigger refuse_lease on webhook_deliveries`.execute(db);
      await sql`drop function refuse_lease()`.execute(db);
    }
  });

  it('limits Send test per endpoint (429 with Retry-After) and allows it again once the limit frees', async () => {
    const owner = await tenant();
    const ep = await endpoint(owner, `${receiver.origin}/tests`);
    const worker = workerOn(t.database, t.clock);
    const sendTest = (headers: Record<string, string> = {}) =>
      owner.api.post(`/api/webhooks/${ep.publicId}/test`, { headers });
    try {
      for (let i = 0; i < 5; i++) assert.equal((await sendTest()).status, 202);
      // Five wait to be sent: the sixth is refused until one has gone.
      const full = await sendTest();
      assert.equal(full.status, 429);
      assert.equal(full.headers.get('retry-after'), String(Math.ceil(TIMEOUT_MS / 1000)));
      assert.deepEqual(full.body, [
        {
          meta: {
            status_code: 429,
            message: `This endpoint already has 5 test messages waiting to be sent; try again in ${Math.ceil(TIMEOUT_MS / 1000)} seconds`,
            code: 'too_many_requests',
          },
          data: [],
        },
      ]);
      const vi = await sendTest({ 'accept-language': 'vi' });
      assert.equal(vi.status, 429);
      assert.match(vi.body[0].meta.message, /^Điểm nhận này đã có 5 tin nhắn thử đang chờ gửi/);

      assert.equal(await worker.drain(), 5);
      for (let i = 0; i < 5; i++) assert.equal((await sendTest()).status, 202);
      // Ten in this minute: the eleventh is refused until the first of them is a minute old.
      t.clock.advance(15_000);
      const rate = await sendTest();
      assert.equal(rate.status, 429);
      assert.equal(rate.headers.get('retry-after'), '45');
      assert.match(rate.body[0].meta.message, /^At most 10 test messages a minute/);

      t.clock.advance(45_000);
      assert.equal(await worker.drain(), 5);
      assert.equal((await sendTest()).status, 202);
    } finally {
      await worker.stop();
    }
  });
});
