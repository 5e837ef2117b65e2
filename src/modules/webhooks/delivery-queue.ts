// The delivery queue's statements, one small function each (graphile-worker style): finding due
// deliveries, giving a lease back, and when the next falls due. The claim that puts them together
// and leases what it chose is in delivery-claim.ts; recording an attempt in delivery-record.ts.
import { type Kysely, type SqlBool, sql } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { idListOf, idListValue } from '../../platform/db/records.js';
import type { Database } from '../../platform/db/types.js';
import type { Candidate } from './claim-shares.js';

/**
 * Statuses written into the SQL rather than bound as parameters: the partial index of queued
 * deliveries serves a query only when its condition visibly implies its own (SQLite never looks
 * inside a parameter).
 */
export const QUEUED = sql<SqlBool>`webhook_deliveries.status in ('pending', 'retrying')`;

/** A row's key: its tenant and its id. */
export interface RowKey {
  tenantId: number;
  id: number;
}

/**
 * Rows of `table` with these keys. On PostgreSQL `(tenant_id, id) in ((…), …)`: one step of the
 * primary key's index per row (a list of tenants and a list of ids would step through every
 * pairing); SQLite finds ids by rowid.
 */
export function keyIn(table: string, keys: readonly RowKey[], postgres: boolean) {
  const id = sql.ref(`${table}.id`);
  if (!postgres) return sql<SqlBool>`${id} in (${sql.join(keys.map((k) => k.id))})`;
  const pairs = keys.map((k) => sql`(${k.tenantId}, ${k.id})`);
  return sql<SqlBool>`(${sql.ref(`${table}.tenant_id`)}, ${id}) in (${sql.join(pairs)})`;
}

export interface QueuedEndpoint {
  endpointId: number;
  tenantId: number;
}

/**
 * The oldest due deliveries, up to `window`. Nothing is locked: the lease locks and checks again
 * the ones chosen (delivery-lease.ts).
 */
export async function oldestDue(
  trx: Kysely<Database>,
  now: number,
  window: number,
  skipIds: readonly number[],
): Promise<Candidate[]> {
  const query = skipIds.length > 0 ? oldestDueSkipping : oldestDueAll;
  return query.all(trx, { now, window, skip: idListValue(trx, skipIds) });
}

type OldestDueParams = { now: number; window: number; skip: unknown };

/** oldestDue's statement, written once (with the ids to skip as one list parameter, or without). */
function oldestDueQuery(skipping: boolean) {
  return preparedQuery((db, p: OldestDueParams) => {
    let query = db
      .selectFrom('webhook_deliveries')
      .select(['id', 'tenant_id', 'endpoint_id'])
      .where(QUEUED)
      .where('next_attempt_at', '<=', p.now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', p.now)]))
      // Nothing goes to a paused endpoint but test messages, which never count toward pausing.
      .where((eb) =>
        eb.or([
          eb('counts_toward_pause', '=', 0),
          eb.exists(
            eb
              .selectFrom('webhook_endpoints as e')
              .select('e.id')
              .whereRef('e.tenant_id', '=', 'webhook_deliveries.tenant_id')
              .whereRef('e.id', '=', 'webhook_deliveries.endpoint_id')
              .where('e.status', '=', 'active'),
          ),
        ]),
      )
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(p.window);
    if (skipping) query = query.where(sql<SqlBool>`webhook_deliveries.id not in ${idListOf(db, p.skip)}`);
    return query;
  });
}

const oldestDueAll = oldestDueQuery(false);
const oldestDueSkipping = oldestDueQuery(true);

/**
 * Endpoints with queued deliveries, one index step each (a loose index scan of the queue by
 * endpoint): as many steps as such endpoints, whatever the number of deliveries queued.
 */
export async function endpointsWithQueuedDeliveries(trx: Kysely<Database>): Promise<QueuedEndpoint[]> {
  const { rows } = await sql<{ endpoint_id: number; tenant_id: number }>`
    with recursive queued(endpoint_id) as (
      select (select endpoint_id from webhook_deliveries where ${QUEUED} order by endpoint_id limit 1)
      union all
      select (select endpoint_id from webhook_deliveries
              where ${QUEUED} and webhook_deliveries.endpoint_id > queued.endpoint_id
              order by endpoint_id limit 1)
      from queued where queued.endpoint_id is not null
    )
    select endpoint_id,
           (select tenant_id from webhook_deliveries
            where ${QUEUED} and webhook_deliveries.endpoint_id = queued.endpoint_id limit 1) as tenant_id
    from queued where endpoint_id is not null`.execute(trx);
  return rows.map((r) => ({ endpointId: Number(r.endpoint_id), tenantId: Number(r.tenant_id) }));
}

/**
 * The first due deliveries of each of these endpoints (up to `perEndpoint` each, read from the
 * endpoint's place in the queue index), oldest first.
 */
export async function dueHeads(
  trx: Kysely<Database>,
  options: {
    now: number;
    /** The endpoints' keys (tenant and id). */
    endpoints: readonly RowKey[];
    skipIds: readonly number[];
    perEndpoint: number;
    window: number;
  },
): Promise<Candidate[]> {
  const { now, endpoints: endpointKeys, skipIds, perEndpoint } = options;
  if (endpointKeys.length === 0) return [];
  // Due deliveries of the outer query's endpoint `e`, in the order of the queue index, which gives
  // the first few without reading the rest (endpoint ids are unique across tenants).
  const dueOfEndpoint = sql<SqlBool>`webhook_deliveries.endpoint_id = e.id and ${QUEUED}
    and webhook_deliveries.next_attempt_at <= ${now}
    and (webhook_deliveries.lease_until is null or webhook_deliveries.lease_until < ${now})
    and (webhook_deliveries.counts_toward_pause = 0 or e.status = 'active')
    ${skipIds.length > 0 ? sql`and webhook_deliveries.id not in (${sql.join(skipIds)})` : sql``}`;
  const endpoints = trx
    .selectFrom('webhook_endpoints as e')
    .where(keyIn('e', endpointKeys, isPostgresDb(trx)));
  if (isPostgresDb(trx)) {
    return endpoints
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select(['id', 'tenant_id', 'endpoint_id', 'next_attempt_at'])
            .where(dueOfEndpoint)
            .orderBy('next_attempt_at')
            .orderBy('id')
            .limit(perEndpoint)
            .as('h'),
        (join) => join.onTrue(),
      )
      .select(['h.id', 'h.tenant_id', 'h.endpoint_id'])
      .orderBy('h.next_attempt_at')
      .orderBy('h.id')
      .limit(options.window)
      .execute();
  }
  // SQLite has no LATERAL; a correlated IN on the rowid reads the same few index entries.
  return endpoints
    .innerJoin('webhook_deliveries as h', (join) =>
      join.on((eb) =>
        eb(
          'h.id',
          'in',
          eb
            .selectFrom('webhook_deliveries')
            .select('webhook_deliveries.id')
            .where(dueOfEndpoint)
            .orderBy('webhook_deliveries.next_attempt_at')
            .orderBy('webhook_deliveries.id')
            .limit(perEndpoint),
        ),
      ),
    )
    .select(['h.id', 'h.tenant_id', 'h.endpoint_id'])
    .orderBy('h.next_attempt_at')
    .orderBy('h.id')
    .limit(options.window)
    .execute();
}

/** Gives a lease back without recording an attempt (a worker stopping before it sent). */
export async function releaseLease(
  db: Kysely<Database>,
  delivery: { id: number; tenantId: number; leaseToken: string },
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_until: null })
    .where('tenant_id', '=', delivery.tenantId)
    .where('id', '=', delivery.id)
    .where('lease_owner', '=', delivery.leaseToken)
    .execute();
}

/**
 * When the next queued delivery falls due, or the next lease of another worker expires: one
 * statement, each minimum a step in its index.
 */
export async function nextDueAt(db: Kysely<Database>, now: number): Promise<number | null> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('webhook_deliveries')
        .select((inner) => inner.fn.min('next_attempt_at').as('at'))
        .where(QUEUED)
        .where((inner) => inner.or([inner('lease_until', 'is', null), inner('lease_until', '<', now)]))
        .as('free'),
      eb
        .selectFrom('webhook_deliveries')
        .select((inner) => inner.fn.min('lease_until').as('at'))
        .where(QUEUED)
        .where('lease_until', '>=', now)
        .as('leased'),
    ])
    .executeTakeFirst();
  const times = [row?.free, row?.leased].filter((v) => v !== null && v !== undefined).map(Number);
  return times.length > 0 ? Math.min(...times) : null;
}

/**
 * When the next queued delivery falls due after `now`: one step in the queue index, however many
 * are due now (those wait for a slot, and the attempts that free it wake the worker).
 */
export async function nextDueAfter(db: Kysely<Database>, now: number): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where(QUEUED)
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}
