// Migration 0013 resolves the alerts raised before the alert lifecycle as the readings since showed.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Kysely } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { furrowMigrator, migrateToLatest } from './migrate.js';

forEachDialect('migration 0013: alerts raised before the lifecycle', { migrated: false }, (database) => {
  let handle: DatabaseHandle;
  before(() => {
    handle = openDatabase(database.url);
  });
  after(() => handle.close());

  it('resolves alerts the readings ended, keeps the breached one active and lets its rule resolve it', async () => {
    const db = handle.db as unknown as Kysely<any>;
    const migrator = furrowMigrator(db, '0013');
    assert.equal((await migrator.migrateToLatest()).error, undefined);

    const { id: tenant } = await db
      .insertInto('tenants')
      .values({ code: 'old-farm', name: 'Old farm', created_at: 0, updated_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const device = async (code: string) =>
      (
        await db
          .insertInto('iot_devices')
          .values({
            tenant_id: tenant,
            code,
            name: code,
            heartbeat_timeout_seconds: 60,
            created_at: 0,
            updated_at: 0,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id as number;
    const rule = async (deviceId: number) =>
      (
        await db
          .insertInto('iot_rules')
          .values({
            tenant_id: tenant,
            device_id: deviceId,
            metric: 'temperature',
            operator: 'gt',
            threshold: 30,
            severity: 'critical',
            created_at: 0,
            updated_at: 0,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id as number;
    const alert = async (ruleId: number, deviceId: number, at: number) =>
      (
        await db
          .insertInto('iot_alerts')
          .values({
            tenant_id: tenant,
            rule_id: ruleId,
            device_id: deviceId,
            metric: 'temperature',
            value: 31,
            threshold: 30,
            operator: 'gt',
            severity: 'critical',
            message: 'hot',
            recorded_at: at,
            created_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id as number;
    const state = (ruleId: number, deviceId: number, breached: number, at: number) =>
      db
        .insertInto('iot_rule_states')
        .values({
          tenant_id: tenant,
          rule_id: ruleId,
          device_id: deviceId,
          breached,
          last_recorded_at: at,
          updated_at: at,
        })
        .execute();

    const [hot, cooled] = [await device('hot'), await device('cooled')];
    const [onHot, onCooled] = [await rule(hot), await rule(cooled)];
    // Device "hot": crossed at 1000 and 3000, still beyond since 3000.
    const first = await alert(onHot, hot, 1000);
    const second = await alert(onHot, hot, 3000);
    await state(onHot, hot, 1, 3500);
    // Device "cooled": crossed at 2000, back to normal at 2500.
    const ended = await alert(onCooled, cooled, 2000);
    await state(onCooled, cooled, 0, 2500);

    await migrateToLatest(handle.db);

    const rows = await db
      .selectFrom('iot_alerts')
      .select(['id', 'status', 'resolved_at'])
      .orderBy('id')
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    assert.deepEqual(
      { status: byId.get(first)!.status, at: Number(byId.get(first)!.resolved_at) },
      { status: 'resolved', at: 3000 },
    );
    assert.deepEqual(
      { status: byId.get(second)!.status, at: byId.get(second)!.resolved_at },
      { status: 'active', at: null },
    );
    assert.deepEqual(
      { status: byId.get(ended)!.status, at: Number(byId.get(ended)!.resolved_at) },
      { status: 'resolved', at: 2500 },
    );
    const hotState = await db
      .selectFrom('iot_rule_states')
      .select('active_alert_id')
      .where('device_id', '=', hot)
      .executeTakeFirstOrThrow();
    assert.equal(hotState.active_alert_id, second);
  });
});
