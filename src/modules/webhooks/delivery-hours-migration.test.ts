// Migration 0018 rolls up the deliveries and attempts already stored into the hours the worker would
// have added them to; the worker's upsert then adds onto those rows.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Kysely } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { type DatabaseHandle, openDatabase } from '../../platform/db/database.js';
import { furrowMigrator, migrateToLatest } from '../../platform/db/migrate.js';
import { addToDeliveryHours, HourTally } from './delivery-hours.js';

const MIN = 60_000;

forEachDialect('migration 0018: webhook delivery hours', { migrated: false }, (database) => {
  let handle: DatabaseHandle;
  before(() => {
    handle = openDatabase(database.url);
  });
  after(() => handle.close());

  it('rolls up the deliveries and attempts already stored, per endpoint and hour', async () => {
    const db = handle.db as unknown as Kysely<any>;
    const migrator = furrowMigrator(db, '0018');
    assert.equal((await migrator.migrateToLatest()).error, undefined);

    const { id: tenant } = await db
      .insertInto('tenants')
      .values({ code: 'old-farm', name: 'Old farm', created_at: 0, updated_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const endpoint = async (n: number) =>
      (
        await db
          .insertInto('webhook_endpoints')
          .values({
            tenant_id: tenant,
            public_id: `ep_old${n}`,
            url: `https://example.com/${n}`,
            events: '["*"]',
            secret_encrypted: 'x',
            status: 'active',
            created_at: 0,
            updated_at: 0,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id as number;
    const [first, second] = [await endpoint(1), await endpoint(2)];
    let deliveries = 0;
    const delivery = async (
      endpointId: number,
      status: string,
      finishedAt: number | null,
      attempts: [number, number][],
    ) => {
      deliveries += 1;
      const { id } = await db
        .insertInto('webhook_deliveries')
        .values({
          tenant_id: tenant,
          endpoint_id: endpointId,
          public_id: `msg_old${deliveries}`,
          event_type: 'harvest.batch.created',
          body: '{}',
          status,
          attempt_count: attempts.length,
          counts_toward_pause: 1,
          request_headers: '{}',
          created_at: 0,
          finished_at: finishedAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const [i, [startedAt, durationMs]] of attempts.entries()) {
        await db
          .insertInto('webhook_attempts')
          .values({
            tenant_id: tenant,
            delivery_id: id,
            number: i + 1,
            started_at: startedAt,
            duration_ms: durationMs,
          })
          .execute();
      }
    };
    const t0 = Date.UTC(2026, 0, 1, 10, 0, 0);
    await delivery(first, 'succeeded', t0 + 10 * MIN, [[t0 + 5 * MIN, 8]]);
    await delivery(first, 'failed', t0 + 70 * MIN, [
      [t0 + 20 * MIN, 40],
      [t0 + 65 * MIN, 12_000],
    ]);
    await delivery(first, 'succeeded', t0 + 75 * MIN, [[t0 + 74 * MIN, 300]]);
    await delivery(first, 'retrying', null, [[t0 + 30 * MIN, 20]]);
    await delivery(first, 'pending', null, []);
    await delivery(second, 'succeeded', t0 + 5 * MIN, [[t0 + 4 * MIN, 5]]);

    await migrateToLatest(handle.db);
    const rows = async () =>
      (
        await db
          .selectFrom('webhook_delivery_hours')
          .selectAll()
          .orderBy('endpoint_id')
          .orderBy('hour_start')
          .execute()
      ).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : Number(v)])));
    const row = (endpointId: number, hourStart: number, values: Record<string, number | null>) => ({
      tenant_id: tenant,
      endpoint_id: endpointId,
      hour_start: hourStart,
      succeeded: 0,
      failed: 0,
      attempts: 0,
      ms_10: 0,
      ms_25: 0,
      ms_50: 0,
      ms_100: 0,
      ms_250: 0,
      ms_500: 0,
      ms_1000: 0,
      ms_2500: 0,
      ms_5000: 0,
      ms_10000: 0,
      ms_over: 0,
      duration_max_ms: null,
      last_success_at: null,
      last_failure_at: null,
      ...values,
    });
    const hour = 3_600_000;
    assert.deepEqual(await rows(), [
      row(first, t0, {
        succeeded: 1,
        attempts: 3,
        ms_10: 1,
        ms_25: 1,
        ms_50: 1,
        duration_max_ms: 40,
        last_success_at: t0 + 10 * MIN,
      }),
      row(first, t0 + hour, {
        succeeded: 1,
        failed: 1,
        attempts: 2,
        ms_500: 1,
        ms_over: 1,
        duration_max_ms: 12_000,
        last_success_at: t0 + 75 * MIN,
        last_failure_at: t0 + 70 * MIN,
      }),
      row(second, t0, {
        succeeded: 1,
        attempts: 1,
        ms_10: 1,
        duration_max_ms: 5,
        last_success_at: t0 + 5 * MIN,
      }),
    ]);

    // The worker's upsert adds onto a backfilled hour: sums, and the greater of each maximum.
    const tally = new HourTally();
    tally.attempt(tenant, first, t0 + 40 * MIN, 45);
    tally.ended(tenant, first, false, t0 + 41 * MIN);
    await handle.db.transaction().execute((trx) => addToDeliveryHours(trx, tally.rows()));
    assert.deepEqual(
      (await rows())[0],
      row(first, t0, {
        succeeded: 1,
        failed: 1,
        attempts: 4,
        ms_10: 1,
        ms_25: 1,
        ms_50: 2,
        duration_max_ms: 45,
        last_success_at: t0 + 10 * MIN,
        last_failure_at: t0 + 41 * MIN,
      }),
    );
  });
});
