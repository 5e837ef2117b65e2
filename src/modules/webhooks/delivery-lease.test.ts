// A claim's lease on a backlog: it leases the oldest due deliveries under its token, and on
// PostgreSQL the versions it writes are heap-only (migration 0025): they stay on their rows' pages
// and the server counts them as HOT updates, for the claim with its shares and the one in one
// statement alike. Claims side by side never lease one delivery twice; on PostgreSQL, where the
// claim reads without a lock, one whose chosen deliveries another holds leases the rest and says so.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { forEachDialect, holdLocks } from '../../../test/support/databases.js';
import { makeTenant } from '../../../test/support/factories.js';
import { type DatabaseHandle, openDatabase } from '../../platform/db/database.js';
import { claimDueDeliveries } from './delivery-claim.js';
import { newDeliveryRow } from './outbox.js';
import { insertDeliveries, insertEndpoint } from './webhook.repository.js';

/** A backlog large enough to fill many pages, of alert-sized messages (about 1 KB each). */
const BACKLOG = 120;
const CLAIMED = 32;
const LEASE_MS = 60_000;

/** An active endpoint taking every event, written straight to the database. */
function anEndpoint(scope: Parameters<typeof insertEndpoint>[0], publicId: string) {
  return insertEndpoint(scope, {
    public_id: publicId,
    url: 'https://example.com/hook',
    description: '',
    events: '["*"]',
    secret_encrypted: 'x',
    status: 'active',
    consecutive_failures: 0,
    created_at: 0,
    updated_at: 0,
  });
}

forEachDialect('delivery lease', (database) => {
  let handle: DatabaseHandle;
  before(() => {
    handle = openDatabase(database.url);
  });
  after(() => handle.close());

  it("leases a backlog's oldest due deliveries, and on PostgreSQL as heap-only updates", async () => {
    const { db } = handle;
    const postgres = database.dialect === 'postgres';
    const tenant = await makeTenant(db);
    const scope = { db, tenantId: tenant.id };
    const endpoint = await anEndpoint(scope, 'ep_lease');
    const now = Date.now();
    const note = 'x'.repeat(1000);
    await insertDeliveries(
      scope,
      Array.from({ length: BACKLOG }, (_, n) =>
        newDeliveryRow({
          endpointId: endpoint.id,
          type: 'iot.alert.raised',
          workspaceId: tenant.code,
          data: { n, note },
          now: now - BACKLOG + n,
        }),
      ),
    );
    const pages = async () => {
      const { rows } = await sql<{ id: number; page: string }>`
        select id, ${sql.raw(postgres ? '(ctid::text::point)[0]::bigint' : 'id')} as page
        from webhook_deliveries where tenant_id = ${tenant.id}`.execute(db);
      return new Map(rows.map((r) => [Number(r.id), String(r.page)]));
    };
    /** The table's heap-only updates as the server counts them (its statistics arrive late: polled). */
    const heapOnlyUpdates = async (atLeast: number) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const { rows } = await sql<{ n: string }>`
          select n_tup_hot_upd as n from pg_stat_user_tables where relname = 'webhook_deliveries'`.execute(
          db,
        );
        const n = Number(rows[0]?.n ?? 0);
        if (n >= atLeast || Date.now() > deadline) return n;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const pagesBefore = await pages();
    const ids = [...pagesBefore.keys()].sort((a, b) => a - b);
    if (postgres) {
      // The backlog spans many pages: a lease that moved rows would show.
      const count = new Set(pagesBefore.values()).size;
      assert.ok(count >= 10, `rows on ${count} pages`);
    }

    // The claim in a transaction, then (PostgreSQL) the one in one statement of a shallow queue.
    for (const [round, atOnce] of [false, true].entries()) {
      const claim = await claimDueDeliveries(db, {
        now,
        leaseMs: LEASE_MS,
        owner: 'lease-test',
        limit: CLAIMED,
        perEndpointLimit: CLAIMED,
        inFlightByEndpoint: new Map(),
        inFlightIds: ids.slice(0, round * CLAIMED),
        atOnce,
      });
      const expected = ids.slice(round * CLAIMED, (round + 1) * CLAIMED);
      assert.deepEqual(
        claim.deliveries.map((d) => d.id),
        expected,
        'the oldest due first, in order',
      );
      const leased = await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'lease_owner', 'lease_until'])
        .where('tenant_id', '=', tenant.id)
        // A claim in one statement that could not take them all leases the rest under a token of
        // its own: the rows of this round's tokens.
        .where('lease_owner', 'in', [...new Set(claim.deliveries.map((d) => d.leaseToken))])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        leased.map((r) => [r.id, Number(r.lease_until)]),
        expected.map((id) => [id, now + LEASE_MS]),
      );
    }

    const pagesAfter = await pages();
    const moved = [...pagesAfter].filter(([id, page]) => pagesBefore.get(id) !== page).map(([id]) => id);
    assert.deepEqual(moved, [], 'rows whose lease wrote their new version on another page');
    if (postgres) assert.equal(await heapOnlyUpdates(2 * CLAIMED), 2 * CLAIMED, 'heap-only updates');
  });
  it('never leases one delivery to two claims side by side, and a claim that lost some says so', async () => {
    const { db } = handle;
    const tenant = await makeTenant(db);
    const scope = { db, tenantId: tenant.id };
    const endpoint = await anEndpoint(scope, 'ep_race');
    const now = Date.now();
    const rows = Array.from({ length: 200 }, (_, n) =>
      newDeliveryRow({
        endpointId: endpoint.id,
        type: 'iot.alert.raised',
        workspaceId: tenant.code,
        data: { n },
        // Due long before the backlog of the test above, which is still queued: claims take these first.
        now: now - 10_000_000 + n,
      }),
    );
    await insertDeliveries(scope, rows);
    const claimOf = (owner: string, limit: number) =>
      claimDueDeliveries(db, {
        now,
        leaseMs: LEASE_MS,
        owner,
        limit,
        perEndpointLimit: 200,
        inFlightByEndpoint: new Map(),
      });
    const leasedRows = async () =>
      db
        .selectFrom('webhook_deliveries')
        .select(['id', 'lease_owner'])
        .where('tenant_id', '=', tenant.id)
        .where('lease_owner', 'is not', null)
        .execute();

    if (database.dialect === 'postgres') {
      // Another transaction holds the 16 oldest (as a claim leasing them would): this claim reads
      // them as free, chooses them, and its lease skips them.
      const oldest = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', tenant.id)
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(16)
        .execute();
      const held = await holdLocks(db, (trx) =>
        trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('tenant_id', '=', tenant.id)
          .where(
            'id',
            'in',
            oldest.map((r) => r.id),
          )
          .forUpdate()
          .execute(),
      );
      const blocked = await claimOf('race-blocked', 16);
      await held.release();
      assert.deepEqual(blocked.deliveries, [], 'the chosen deliveries were held by another');
      assert.equal(blocked.lost, true);
      const again = await claimOf('race-again', 16);
      assert.deepEqual(
        again.deliveries.map((d) => d.id),
        oldest.map((r) => r.id),
      );
      assert.equal(again.lost, undefined);
    }

    // Eight claims at once (on PostgreSQL on as many connections): each delivery leased once, under
    // the token of the one claim that answered it; a claim that leased fewer than it asked lost some.
    const claims = await Promise.all(Array.from({ length: 8 }, (_, n) => claimOf(`race-${n}`, 16)));
    const answered = claims.flatMap((c) => c.deliveries.map((d) => [d.id, d.leaseToken] as const));
    assert.equal(new Set(answered.map(([id]) => id)).size, answered.length, 'a delivery leased twice');
    const stored = new Map((await leasedRows()).map((r) => [Number(r.id), r.lease_owner]));
    for (const [id, token] of answered) assert.equal(stored.get(id), token);
    for (const claim of claims) {
      if (claim.deliveries.length < 16) assert.equal(claim.lost, true, 'fewer leased than chosen');
    }
    assert.ok(answered.length >= 16, `${answered.length} leased`);
  });
});
