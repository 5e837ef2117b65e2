// A claim's lease on a backlog: it leases the oldest due deliveries under its token, and on
// PostgreSQL the versions it writes stay on their rows' pages (migration 0025: a heap-only update,
// no index entry written).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { makeTenant } from '../../../test/support/factories.js';
import { type DatabaseHandle, openDatabase } from '../../platform/db/database.js';
import { claimDueDeliveries } from './delivery-claim.js';
import { newDeliveryRow } from './outbox.js';
import { insertDeliveries } from './webhook.repository.js';

/** A backlog large enough to fill many pages, of alert-sized messages (about 1 KB each). */
const BACKLOG = 120;
const CLAIMED = 32;

forEachDialect('delivery lease', (database) => {
  let handle: DatabaseHandle;
  before(() => {
    handle = openDatabase(database.url);
  });
  after(() => handle.close());

  it("leases a backlog's oldest due deliveries, and on PostgreSQL leaves every row on its page", async () => {
    const { db } = handle;
    const tenant = await makeTenant(db);
    const { id: endpointId } = await db
      .insertInto('webhook_endpoints')
      .values({
        tenant_id: tenant.id,
        public_id: 'ep_lease',
        url: 'https://example.com/hook',
        description: '',
        events: '["*"]',
        consecutive_failures: 0,
        secret_encrypted: 'x',
        status: 'active',
        created_at: 0,
        updated_at: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const now = Date.now();
    const note = 'x'.repeat(1000);
    await insertDeliveries(
      { db, tenantId: tenant.id },
      Array.from({ length: BACKLOG }, (_, n) => ({
        ...newDeliveryRow({
          endpointId,
          type: 'iot.alert.raised',
          workspaceId: tenant.code,
          data: { n, note },
          now: now - BACKLOG + n,
        }),
        next_attempt_at: now - BACKLOG + n,
      })),
    );
    const postgres = database.dialect === 'postgres';
    const pageOf = async () => {
      const { rows } = await sql<{ id: number; page: string }>`
        select id, ${sql.raw(postgres ? '(ctid::text::point)[0]::bigint' : 'id')} as page
        from webhook_deliveries where tenant_id = ${tenant.id}`.execute(db);
      return new Map(rows.map((r) => [Number(r.id), String(r.page)]));
    };
    const before = await pageOf();
    if (postgres) {
      // The backlog spans many pages: a lease that moved rows would show.
      assert.ok(new Set(before.values()).size >= 10, `rows on ${new Set(before.values()).size} pages`);
    }

    const claim = await claimDueDeliveries(db, {
      now,
      leaseMs: 60_000,
      owner: 'lease-test',
      limit: CLAIMED,
      perEndpointLimit: CLAIMED,
      inFlightByEndpoint: new Map(),
    });
    assert.equal(claim.deliveries.length, CLAIMED);
    const ids = [...before.keys()].sort((a, b) => a - b);
    assert.deepEqual(
      claim.deliveries.map((d) => d.id),
      ids.slice(0, CLAIMED),
      'the oldest due first, in order',
    );
    const leased = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'lease_owner', 'lease_until'])
      .where('tenant_id', '=', tenant.id)
      .where('lease_owner', 'is not', null)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      leased.map((r) => r.id),
      ids.slice(0, CLAIMED),
    );
    for (const row of leased) {
      assert.equal(row.lease_owner, claim.deliveries[0]!.leaseToken);
      assert.equal(Number(row.lease_until), now + 60_000);
    }

    const afterLease = await pageOf();
    const moved = [...afterLease].filter(([id, page]) => before.get(id) !== page).map(([id]) => id);
    assert.deepEqual(moved, [], 'rows whose lease wrote their new version on another page');
  });
});
