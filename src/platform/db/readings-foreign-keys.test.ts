// Migration 0022: on PostgreSQL a reading's tenant is checked through its device only (the tenant's
// own foreign key went, as the device's implies it); a reading still cannot name a device of
// another tenant, nor a device that does not exist.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { makeTenant } from '../../../test/support/factories.js';
import { type DatabaseHandle, openDatabase } from './database.js';

forEachDialect('readings and their foreign keys', (database) => {
  let handle: DatabaseHandle;
  before(() => {
    handle = openDatabase(database.url, { maxConnections: 2 });
  });
  after(() => handle.close());

  it('refuses a reading of another tenant’s device or of no device, and stores one of its own', async () => {
    const mine = await makeTenant(handle.db);
    const theirs = await makeTenant(handle.db);
    const now = Date.now();
    const device = async (tenantId: number) =>
      (
        await handle.db
          .insertInto('iot_devices')
          .values({
            tenant_id: tenantId,
            code: `d-${tenantId}`,
            name: 'probe',
            zone_id: null,
            heartbeat_timeout_seconds: 300,
            last_heartbeat_at: null,
            is_online: 0,
            offline_at: null,
            dev_eui: null,
            created_at: now,
            updated_at: now,
            deleted_at: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const theirDevice = await device(theirs.id);
    const myDevice = await device(mine.id);
    const reading = (tenantId: number, deviceId: number) =>
      handle.db
        .insertInto('iot_readings')
        .values({
          tenant_id: tenantId,
          device_id: deviceId,
          metric: 'm',
          value: 1,
          recorded_at: now,
          received_at: now,
        })
        .execute();
    await assert.rejects(reading(mine.id, theirDevice), /foreign key/i);
    await assert.rejects(reading(mine.id, 2 ** 30), /foreign key/i);
    await reading(mine.id, myDevice);
    if (handle.dialect === 'postgres') {
      const { rows } = await sql<{ definition: string }>`
        select pg_get_constraintdef(oid) as definition from pg_constraint
        where conrelid = 'iot_readings'::regclass and contype = 'f'`.execute(handle.db);
      assert.deepEqual(
        rows.map((r) => r.definition),
        ['FOREIGN KEY (tenant_id, device_id) REFERENCES iot_devices(tenant_id, id)'],
      );
    }
  });
});
