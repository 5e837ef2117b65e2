// Migration 0009 rolls up the readings stored before it, into the buckets ingestion would have made.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { furrowMigrator, migrateToLatest } from './migrate.js';

forEachDialect('migration 0009: reading roll-ups', { migrated: false }, (database) => {
  let handle: DatabaseHandle;
  before(() => {
    handle = openDatabase(database.url);
  });
  after(() => handle.close());

  it('rolls up the readings already stored', async () => {
    const db = handle.db as unknown as Kysely<any>;
    const migrator = furrowMigrator(db, '0009');
    const { error } = await migrator.migrateToLatest();
    assert.equal(error, undefined);

    const tenant = await db
      .insertInto('tenants')
      .values({ code: 'old-farm', name: 'Old farm', created_at: 0, updated_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const device = await db
      .insertInto('iot_devices')
      .values({
        tenant_id: tenant.id,
        code: 'd-1',
        name: 'D',
        heartbeat_timeout_seconds: 60,
        created_at: 0,
        updated_at: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const t0 = Date.UTC(2026, 0, 1, 10, 0, 0);
    const readings: [string, number, number][] = [
      ['temperature', 10, t0 + 5_000],
      ['temperature', 20, t0 + 50_000],
      ['temperature', 30, t0 + 65_000],
      ['temperature', 40, t0 + 3_600_000],
      ['humidity', 55, t0],
      ['temperature', 1, -30_000], // before 1970: the bucket is the minute before the epoch
    ];
    await db
      .insertInto('iot_readings')
      .values(
        readings.map(([metric, value, at]) => ({
          tenant_id: tenant.id,
          device_id: device.id,
          metric,
          value,
          recorded_at: at,
          received_at: at,
        })),
      )
      .execute();

    await migrateToLatest(handle.db);
    const rows = async (table: string) =>
      (
        await sql<{
          metric: string;
          bucket_start: number;
          min: number;
          max: number;
          sum: number;
          count: number;
        }>`
          select metric, bucket_start, min, max, sum, count from ${sql.table(table)}
          order by metric, bucket_start`.execute(db)
      ).rows.map((r) => [r.metric, Number(r.bucket_start), r.min, r.max, r.sum, Number(r.count)]);
    assert.deepEqual(await rows('iot_readings_1m'), [
      ['humidity', t0, 55, 55, 55, 1],
      ['temperature', -60_000, 1, 1, 1, 1],
      ['temperature', t0, 10, 20, 30, 2],
      ['temperature', t0 + 60_000, 30, 30, 30, 1],
      ['temperature', t0 + 3_600_000, 40, 40, 40, 1],
    ]);
    assert.deepEqual(await rows('iot_readings_1h'), [
      ['humidity', t0, 55, 55, 55, 1],
      ['temperature', -3_600_000, 1, 1, 1, 1],
      ['temperature', t0, 10, 30, 60, 3],
      ['temperature', t0 + 3_600_000, 40, 40, 40, 1],
    ]);
    assert.deepEqual(await rows('iot_readings_1d'), [
      ['humidity', Date.UTC(2026, 0, 1), 55, 55, 55, 1],
      ['temperature', -86_400_000, 1, 1, 1, 1],
      ['temperature', Date.UTC(2026, 0, 1), 10, 40, 100, 4],
    ]);
  });
});
