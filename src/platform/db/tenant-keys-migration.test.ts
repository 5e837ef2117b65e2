// Migration 0021 moves keys to lead with tenant_id on a filled database: rows, foreign keys and their
// cascades, and the ids still to come are as they were; public ids become unique per tenant.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Kysely } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { furrowMigrator, migrateToLatest } from './migrate.js';

forEachDialect('migration 0021: tenant-leading keys', { migrated: false }, (database) => {
  let handle: DatabaseHandle;
  before(() => {
    handle = openDatabase(database.url);
  });
  after(() => handle.close());

  it('keeps the rows, the foreign keys and the ids to come, and makes public ids unique per tenant', async () => {
    const db = handle.db as unknown as Kysely<any>;
    const migrator = furrowMigrator(db, '0021');
    assert.equal((await migrator.migrateToLatest()).error, undefined);

    const tenant = async (code: string) =>
      (
        await db
          .insertInto('tenants')
          .values({ code, name: code, created_at: 0, updated_at: 0 })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id as number;
    const endpoint = async (tenantId: number, publicId: string) =>
      (
        await db
          .insertInto('webhook_endpoints')
          .values({
            tenant_id: tenantId,
            public_id: publicId,
            url: 'https://example.com/hook',
            events: '[]',
            secret_encrypted: 'x',
            status: 'active',
            created_at: 0,
            updated_at: 0,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id as number;
    const delivery = async (tenantId: number, endpointId: number, publicId: string) =>
      (
        await db
          .insertInto('webhook_deliveries')
          .values({
            tenant_id: tenantId,
            endpoint_id: endpointId,
            public_id: publicId,
            event_type: 'crop.created',
            body: '{}',
            status: 'pending',
            counts_toward_pause: 1,
            request_headers: '{}',
            created_at: 0,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id as number;

    const farm = await tenant('farm');
    const other = await tenant('other');
    const { id: user } = await db
      .insertInto('users')
      .values({
        tenant_id: farm,
        username: 'ann',
        password_hash: 'h',
        role: 'owner',
        created_at: 0,
        updated_at: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('access_tokens')
      .values({ tenant_id: farm, user_id: user, token_hash: 'a'.repeat(64), created_at: 0, expires_at: 1 })
      .execute();
    const hook = await endpoint(farm, 'ep_1');
    const kept = await delivery(farm, hook, 'msg_1');
    const gone = await delivery(farm, hook, 'msg_2');
    await db
      .insertInto('webhook_attempts')
      .values({ tenant_id: farm, delivery_id: kept, number: 1, started_at: 0, duration_ms: 5 })
      .execute();
    // The highest id is deleted: no later row may be given it again.
    await db.deleteFrom('webhook_deliveries').where('id', '=', gone).execute();

    await migrateToLatest(handle.db);

    const count = async (table: string) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.deepEqual(
      [await count('access_tokens'), await count('webhook_deliveries'), await count('webhook_attempts')],
      [1, 1, 1],
    );
    assert.ok((await delivery(farm, hook, 'msg_3')) > gone, 'a deleted id is not given again');

    // Public ids are unique within a tenant, no longer across tenants.
    await endpoint(other, 'ep_1');
    await assert.rejects(endpoint(farm, 'ep_1'));
    // Foreign keys still hold, by tenant and id, and still cascade.
    await assert.rejects(delivery(other, hook, 'msg_4'));
    await db.deleteFrom('webhook_endpoints').where('tenant_id', '=', farm).where('id', '=', hook).execute();
    assert.deepEqual([await count('webhook_deliveries'), await count('webhook_attempts')], [0, 0]);
    await db.deleteFrom('users').where('tenant_id', '=', farm).where('id', '=', user).execute();
    assert.equal(await count('access_tokens'), 0);
  });
});
