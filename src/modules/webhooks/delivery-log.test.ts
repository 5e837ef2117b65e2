// The worker's pruning of delivery logs, against a real database: nothing before the finished
// deliveries of the endpoints due add up to PRUNE_BATCH, then every endpoint with PRUNE_EVERY
// finished pruned to its newest LOG_SIZE in one transaction, the others left for the idle prune; an
// endpoint that cannot be pruned holds back no other.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { webhookFixture } from '../../../test/support/webhook-fixture.js';
import { LOG_SIZE, LogPruner, PRUNE_BATCH, PRUNE_EVERY, pruneDeliveryLog } from './delivery-log.js';

forEachDialect('webhook delivery log pruning', (database) => {
  const f = webhookFixture(database);
  const db = () => f.t.database.db as unknown as Kysely<any>;

  /** An endpoint's internal key, for rows written straight into its log. */
  async function endpointKey(): Promise<{ tenantId: number; endpointId: number }> {
    const { id } = await f.endpoint();
    const row = await db()
      .selectFrom('webhook_endpoints')
      .select(['tenant_id', 'id'])
      .where('public_id', '=', id)
      .executeTakeFirstOrThrow();
    return { tenantId: Number(row.tenant_id), endpointId: Number(row.id) };
  }

  let serial = 0;
  /**
   * `count` finished deliveries of the endpoint, each with its attempt, finished a millisecond apart
   * after any before; answers their public ids, oldest first.
   */
  async function finishedDeliveries(
    key: { tenantId: number; endpointId: number },
    count: number,
    options: { status?: 'succeeded' | 'failed' | 'pending'; finishedAt?: (i: number) => number } = {},
  ): Promise<string[]> {
    const now = f.t.clock.now();
    const ids: string[] = [];
    for (let n = 0; n < count; n++) {
      const i = serial++;
      const status = options.status ?? 'succeeded';
      ids.push(`dlv_prune_${i}`);
      const { id } = await db()
        .insertInto('webhook_deliveries')
        .values({
          tenant_id: key.tenantId,
          endpoint_id: key.endpointId,
          public_id: `dlv_prune_${i}`,
          event_type: 'harvest.batch.created',
          body: '{}',
          status,
          attempt_count: 1,
          counts_toward_pause: 1,
          request_headers: '{}',
          created_at: now + i,
          finished_at: status === 'pending' ? null : (options.finishedAt?.(n) ?? now + i),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db()
        .insertInto('webhook_attempts')
        .values({
          tenant_id: key.tenantId,
          delivery_id: id,
          number: 1,
          started_at: now + i,
          duration_ms: 3,
          status_code: 200,
        })
        .execute();
    }
    return ids;
  }

  /** The public ids of the endpoint's deliveries in the database, newest first (the log API shows only LOG_SIZE). */
  async function storedIds(key: { endpointId: number }): Promise<string[]> {
    const rows = await db()
      .selectFrom('webhook_deliveries')
      .select('public_id')
      .where('endpoint_id', '=', key.endpointId)
      .orderBy('finished_at', 'desc')
      .execute();
    return rows.map((r) => r.public_id);
  }

  /** How many deliveries and attempts of the endpoint the database holds. */
  async function stored(key: { endpointId: number }): Promise<{ deliveries: number; attempts: number }> {
    const { n } = await db()
      .selectFrom('webhook_attempts')
      .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('webhook_deliveries.endpoint_id', '=', key.endpointId)
      .executeTakeFirstOrThrow();
    return { deliveries: (await storedIds(key)).length, attempts: Number(n) };
  }

  const finish = (pruner: LogPruner, key: { tenantId: number; endpointId: number }, n: number) => {
    for (let i = 0; i < n; i++) pruner.finished(key.tenantId, key.endpointId);
  };

  it('prunes nothing below the batch, then every endpoint due in one go, keeping the newest 50', async () => {
    const [a, b, c] = [await endpointKey(), await endpointKey(), await endpointKey()];
    const ofA = await finishedDeliveries(a, 130);
    await finishedDeliveries(b, 90);
    await finishedDeliveries(c, 70);
    const pruner = new LogPruner(f.t.database.db, f.t.clock);
    // a and b are due (PRUNE_EVERY or more each) but add up to less than the batch; c is not due.
    finish(pruner, a, 100);
    finish(pruner, b, PRUNE_BATCH - 100 - 1);
    finish(pruner, c, PRUNE_EVERY - 1);
    await pruner.pruneWhenDue();
    assert.deepEqual(
      [await stored(a), await stored(b), await stored(c)],
      [
        { deliveries: 130, attempts: 130 },
        { deliveries: 90, attempts: 90 },
        { deliveries: 70, attempts: 70 },
      ],
    );
    finish(pruner, b, 1);
    await pruner.pruneWhenDue();
    assert.deepEqual(await storedIds(a), ofA.slice(-LOG_SIZE).reverse(), 'the newest are kept');
    assert.deepEqual(
      [await stored(a), await stored(b), await stored(c)],
      [
        { deliveries: LOG_SIZE, attempts: LOG_SIZE },
        { deliveries: LOG_SIZE, attempts: LOG_SIZE },
        { deliveries: 70, attempts: 70 },
      ],
      'a and b are pruned with their attempts, c is not due yet',
    );
    // a's and b's counts start again: 199 more of a are not a batch (c's 24 are not due).
    await finishedDeliveries(a, 30);
    finish(pruner, a, PRUNE_BATCH - 1);
    await pruner.pruneWhenDue();
    assert.deepEqual(await stored(a), { deliveries: LOG_SIZE + 30, attempts: LOG_SIZE + 30 });
    await pruner.prune(0);
    assert.deepEqual(
      [await stored(a), await stored(c)],
      [
        { deliveries: LOG_SIZE, attempts: LOG_SIZE },
        { deliveries: LOG_SIZE, attempts: LOG_SIZE },
      ],
      'the idle prune takes every endpoint with any finished',
    );
  });

  it('keeps the newest 50 by finish time then id, ties across the cut included, and every queued one', async () => {
    const key = await endpointKey();
    const queued = await finishedDeliveries(key, 3, { status: 'pending' });
    const tooFew = await endpointKey();
    await finishedDeliveries(tooFew, LOG_SIZE - 1);
    // The planner's statistics are taken while the endpoint has no finished delivery (as after a
    // backlog was queued): the prune must not depend on them.
    if (database.dialect === 'postgres') await sql`analyze webhook_deliveries`.execute(db());
    else await sql`analyze`.execute(db());
    // 64 finished, four at each millisecond: the cut (the 50th newest) falls inside a group of four.
    const at = f.t.clock.now() + 1_000;
    const finished = [
      ...(await finishedDeliveries(key, 40, { finishedAt: (n) => at + Math.floor(n / 4) })),
      ...(await finishedDeliveries(key, 24, {
        status: 'failed',
        finishedAt: (n) => at + 10 + Math.floor(n / 4),
      })),
    ];
    assert.equal(await pruneDeliveryLog(db(), key.tenantId, key.endpointId), 64 - LOG_SIZE);
    const kept = new Set(await storedIds(key));
    // Inserted in id order within each millisecond: the newest are the last inserted.
    assert.deepEqual(
      finished.filter((id) => kept.has(id)),
      finished.slice(-LOG_SIZE),
    );
    assert.ok(
      queued.every((id) => kept.has(id)),
      'queued deliveries are never pruned',
    );
    assert.equal(kept.size, LOG_SIZE + queued.length);
    assert.deepEqual(await stored(key), { deliveries: LOG_SIZE + 3, attempts: LOG_SIZE + 3 });
    assert.equal(await pruneDeliveryLog(db(), tooFew.tenantId, tooFew.endpointId), 0);
    assert.equal((await storedIds(tooFew)).length, LOG_SIZE - 1);
  });

  it('an endpoint that cannot be pruned holds back no other, and is pruned again next time', async () => {
    const [a, b, c] = [await endpointKey(), await endpointKey(), await endpointKey()];
    for (const key of [a, b, c]) await finishedDeliveries(key, 80);
    const pruner = new LogPruner(f.t.database.db, f.t.clock);
    for (const key of [a, b, c]) finish(pruner, key, 70);
    // b's deletes fail: the batch's transaction (a, then b, then c in key order) is rolled back,
    // then each endpoint is pruned alone.
    const guard =
      database.dialect === 'sqlite'
        ? [
            sql`create trigger refuse_prune before delete on webhook_deliveries
                when old.endpoint_id = ${sql.lit(b.endpointId)}
                begin select raise(abort, 'refused in the test'); end`,
          ]
        : [
            sql`create function refuse_prune() returns trigger language plpgsql as $$
                begin raise exception 'refused in the test'; end $$`,
            sql`create trigger refuse_prune before delete on webhook_deliveries
                for each row when (old.endpoint_id = ${sql.lit(b.endpointId)})
                execute function refuse_prune()`,
          ];
    for (const statement of guard) await statement.execute(db());
    try {
      await pruner.pruneWhenDue();
      assert.deepEqual(
        [await stored(a), await stored(b), await stored(c)],
        [
          { deliveries: LOG_SIZE, attempts: LOG_SIZE },
          { deliveries: 80, attempts: 80 },
          { deliveries: LOG_SIZE, attempts: LOG_SIZE },
        ],
      );
      // b's count is kept: 70 due, not a batch yet.
      await pruner.pruneWhenDue();
      assert.deepEqual(await stored(b), { deliveries: 80, attempts: 80 });
    } finally {
      await sql`drop trigger refuse_prune${database.dialect === 'postgres' ? sql` on webhook_deliveries` : sql``}`.execute(
        db(),
      );
      if (database.dialect === 'postgres') await sql`drop function refuse_prune()`.execute(db());
    }
    finish(pruner, b, PRUNE_BATCH - 70);
    await pruner.pruneWhenDue();
    assert.deepEqual(await stored(b), { deliveries: LOG_SIZE, attempts: LOG_SIZE });
  });
});
