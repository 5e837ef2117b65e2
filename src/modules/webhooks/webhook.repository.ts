// Tenant-scoped reads and writes of webhook endpoints and deliveries (the management API's side).
// The worker's queue statements are in delivery-queue.ts.
import {
  type Insertable,
  type InsertQueryBuilder,
  type InsertResult,
  type RawBuilder,
  type Selectable,
  type SqlBool,
  sql,
} from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import {
  deleteScoped,
  insertScoped,
  type Scope,
  selectScoped,
  updateScoped,
} from '../../platform/db/scope.js';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from '../../platform/db/tables/webhooks.js';
import type { Database } from '../../platform/db/types.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;
export type DeliveryInsert = Omit<Insertable<WebhookDeliveriesTable>, 'tenant_id' | 'id'>;

export async function insertEndpoint(
  scope: Scope,
  row: Omit<Insertable<WebhookEndpointsTable>, 'tenant_id' | 'id'>,
): Promise<EndpointRow> {
  return insertScoped(scope, 'webhook_endpoints', row).returningAll().executeTakeFirstOrThrow();
}

export async function findEndpoint(scope: Scope, publicId: string): Promise<EndpointRow | undefined> {
  return selectScoped(scope, 'webhook_endpoints')
    .selectAll()
    .where('public_id', '=', publicId)
    .executeTakeFirst();
}

/**
 * findEndpoint, and on PostgreSQL the row stays locked until the caller's transaction ends: what
 * the caller counts for the endpoint (its test messages) is counted by one request at a time.
 */
export async function findEndpointForUpdate(
  scope: Scope,
  publicId: string,
): Promise<EndpointRow | undefined> {
  let query = selectScoped(scope, 'webhook_endpoints').selectAll().where('public_id', '=', publicId);
  if (isPostgresDb(scope.db)) query = query.forNoKeyUpdate();
  return query.executeTakeFirst();
}

export async function listEndpoints(scope: Scope): Promise<EndpointRow[]> {
  return selectScoped(scope, 'webhook_endpoints').selectAll().orderBy('id').execute();
}

export async function updateEndpoint(
  scope: Scope,
  id: number,
  patch: Partial<Omit<Insertable<WebhookEndpointsTable>, 'tenant_id' | 'id' | 'public_id'>>,
): Promise<EndpointRow> {
  return updateScoped(scope, 'webhook_endpoints')
    .set(patch)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteEndpoint(scope: Scope, id: number): Promise<void> {
  // Deliveries and attempts go with it (ON DELETE CASCADE).
  await deleteScoped(scope, 'webhook_endpoints').where('id', '=', id).execute();
}

/** held deliveries per endpoint id. */
export async function countHeld(scope: Scope, endpointIds: number[]): Promise<Map<number, number>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await selectScoped(scope, 'webhook_deliveries')
    .select((eb) => ['endpoint_id', eb.fn.countAll<number | string>().as('n')])
    .where('endpoint_id', 'in', endpointIds)
    .where('status', '=', 'held')
    .groupBy('endpoint_id')
    .execute();
  return new Map(rows.map((r) => [r.endpoint_id, Number(r.n)]));
}

export interface LastDeliveryRow {
  endpoint_id: number;
  public_id: string;
  event_type: string;
  status: DeliveryRow['status'];
  created_at: number;
  /** Its latest attempt: when it started and the receiver's HTTP status (null without an answer). */
  started_at: number | null;
  status_code: number | null;
}

/**
 * The newest delivery of each endpoint (by id: the last one created, queued or finished) with its
 * latest attempt, in one statement for the whole list. Each endpoint costs one step down the
 * (tenant_id, endpoint_id, id) index, one lookup of that delivery and one of its attempt numbered
 * attempt_count (an attempt and its count are written in one transaction), however long its queue
 * or log. The newest ids are picked in a derived table first: a correlated subquery in the join
 * condition itself leaves PostgreSQL no index to join on.
 */
export async function lastDeliveries(
  scope: Scope,
  endpointIds: number[],
): Promise<Map<number, LastDeliveryRow>> {
  if (endpointIds.length === 0) return new Map();
  const newest = selectScoped(scope, 'webhook_endpoints')
    .where('webhook_endpoints.id', 'in', endpointIds)
    .select((eb) => [
      'webhook_endpoints.id as endpoint_id',
      eb
        .selectFrom('webhook_deliveries as newest')
        .select('newest.id')
        .whereRef('newest.tenant_id', '=', 'webhook_endpoints.tenant_id')
        .whereRef('newest.endpoint_id', '=', 'webhook_endpoints.id')
        .orderBy('newest.id', 'desc')
        .limit(1)
        .as('delivery_id'),
    ])
    .as('n');
  const rows = await scope.db
    .selectFrom(newest)
    .innerJoin('webhook_deliveries as d', (join) =>
      join.on('d.tenant_id', '=', scope.tenantId).onRef('d.id', '=', 'n.delivery_id'),
    )
    .leftJoin('webhook_attempts as a', (join) =>
      join
        .onRef('a.tenant_id', '=', 'd.tenant_id')
        .onRef('a.delivery_id', '=', 'd.id')
        .onRef('a.number', '=', 'd.attempt_count'),
    )
    .select([
      'n.endpoint_id',
      'd.public_id',
      'd.event_type',
      'd.status',
      'd.created_at',
      'a.started_at',
      'a.status_code',
    ])
    .execute();
  return new Map(rows.map((r) => [r.endpoint_id, r]));
}

export interface TestMessageCounts {
  /** Test messages of the endpoint queued or in flight. */
  queued: number;
  /** Test messages of the endpoint created after `since`, and the oldest such creation time. */
  recent: number;
  oldestRecentAt: number | null;
}

/**
 * Counts an endpoint's test messages through their own index: its queued ones and the ones still in
 * its log, a few dozen at most.
 */
export async function countTestMessages(
  scope: Scope,
  endpointId: number,
  since: number,
): Promise<TestMessageCounts> {
  const rows = await selectScoped(scope, 'webhook_deliveries')
    .select(['status', 'created_at'])
    .where('endpoint_id', '=', endpointId)
    // Test messages of any kind (webhook.test and event kinds' examples) are the deliveries that
    // never count toward pausing. Written out, not bound: the partial index serves only this condition.
    .where(sql<SqlBool>`webhook_deliveries.counts_toward_pause = ${sql.lit(0)}`)
    .execute();
  const recent = rows.filter((r) => r.created_at > since).map((r) => r.created_at);
  return {
    queued: rows.filter((r) => r.status === 'pending' || r.status === 'retrying').length,
    recent: recent.length,
    oldestRecentAt: recent.length > 0 ? Math.min(...recent) : null,
  };
}

/** A write of another table that may join the deliveries' statement (insertDeliveries). */
export type AlongsideWrite<T extends keyof Database> = InsertQueryBuilder<Database, T, InsertResult>;

/**
 * Queues the deliveries. PostgreSQL: `alongside` is an expression evaluated in the same statement,
 * such as the NOTIFY that wakes the workers, and `write` another table's write made in it too (one
 * round trip, not two or three). On SQLite, and when there are no deliveries, `write` is a
 * statement of its own (and `alongside`, a PostgreSQL expression, is not for SQLite).
 */
export async function insertDeliveries<T extends keyof Database>(
  scope: Scope,
  rows: DeliveryInsert[],
  alongside?: RawBuilder<unknown>,
  write?: AlongsideWrite<T>,
): Promise<void> {
  const insert = rows.length > 0 ? insertScoped(scope, 'webhook_deliveries', rows) : undefined;
  if (!insert || !isPostgresDb(scope.db)) {
    await insert?.execute();
    await write?.execute();
    return;
  }
  if (!alongside && !write) {
    await insert.execute();
    return;
  }
  // A data-modifying WITH runs to completion whether or not the statement reads it.
  const written = write ? sql`, written as (${write})` : sql``;
  await sql`with queued as (${insert})${written} select ${alongside ?? sql`null`}`.execute(scope.db);
}

export async function findDelivery(
  scope: Scope,
  endpointId: number,
  publicId: string,
): Promise<DeliveryRow | undefined> {
  return selectScoped(scope, 'webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('public_id', '=', publicId)
    .executeTakeFirst();
}

/** Narrows an endpoint's log: its status, its kind, created at or after `since`, at or before `until`. */
export interface DeliveryFilter {
  status?: DeliveryRow['status'] | undefined;
  eventType?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
}

export async function listDeliveries(
  scope: Scope,
  endpointId: number,
  limit: number,
  filter: DeliveryFilter = {},
): Promise<DeliveryRow[]> {
  let query = selectScoped(scope, 'webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.eventType !== undefined) query = query.where('event_type', '=', filter.eventType);
  if (filter.since !== undefined) query = query.where('created_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('created_at', '<=', filter.until);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

export async function attemptsOf(scope: Scope, deliveryIds: number[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return selectScoped(scope, 'webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('number')
    .execute();
}

/** A finished delivery goes back on the queue for one more attempt (same id, same body). */
export async function requeueForRedelivery(
  scope: Scope,
  delivery: DeliveryRow,
  now: number,
): Promise<boolean> {
  const result = await updateScoped(scope, 'webhook_deliveries')
    .set({
      status: 'pending',
      max_attempts: delivery.attempt_count + 1,
      counts_toward_pause: 0,
      next_attempt_at: now,
      finished_at: null,
      lease_owner: null,
      lease_until: null,
    })
    .where('id', '=', delivery.id)
    .where('status', 'in', ['succeeded', 'failed'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Re-enabling an endpoint: its held deliveries become due now, in the order they were created. */
export async function releaseHeldDeliveries(scope: Scope, endpointId: number, now: number): Promise<number> {
  const result = await updateScoped(scope, 'webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'held')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Written into the SQL rather than bound: the partial index of finished deliveries (tenant, endpoint,
 * finished_at) serves a query only when its condition visibly implies the index's.
 */
const FINISHED = sql<SqlBool>`webhook_deliveries.status in ('succeeded', 'failed')`;
const FAILED = sql<SqlBool>`webhook_deliveries.status = 'failed'`;

/** Deliveries of an endpoint that ended `failed` with finished_at in [since, until]. */
export async function countFailedBetween(
  scope: Scope,
  endpointId: number,
  since: number,
  until: number,
): Promise<number> {
  const row = await selectScoped(scope, 'webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('endpoint_id', '=', endpointId)
    .where(FINISHED)
    .where(FAILED)
    .where('finished_at', '>=', since)
    .where('finished_at', '<=', until)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Every delivery of an endpoint that ended `failed` in [since, until] goes back on the queue for one
 * more attempt, as requeueForRedelivery does with one: same id and body, not counted toward pausing.
 * One statement; answers how many.
 */
export async function requeueFailedBetween(
  scope: Scope,
  endpointId: number,
  since: number,
  until: number,
  now: number,
): Promise<number> {
  const result = await updateScoped(scope, 'webhook_deliveries')
    .set((eb) => ({
      status: 'pending',
      max_attempts: eb('attempt_count', '+', 1),
      counts_toward_pause: 0,
      next_attempt_at: now,
      finished_at: null,
      lease_owner: null,
      lease_until: null,
    }))
    .where('endpoint_id', '=', endpointId)
    .where(FINISHED)
    .where(FAILED)
    .where('finished_at', '>=', since)
    .where('finished_at', '<=', until)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
