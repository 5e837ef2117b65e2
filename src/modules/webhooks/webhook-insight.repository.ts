// The reads behind an endpoint's insight: outcomes over a window, attempt durations, and the last
// day's outcomes of every endpoint of a list.
import { type SqlBool, sql } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import { type Scope, selectScoped } from '../../platform/db/scope.js';
import type { DeliveryRow } from './webhook.repository.js';

/** Written into the SQL, not bound: the partial index of finished deliveries needs to see it. */
const FINISHED = sql<SqlBool>`webhook_deliveries.status in ('succeeded', 'failed')`;

export interface OutcomeCounts {
  succeeded: number;
  failed: number;
  /** Queued now: pending or retrying. */
  queued: number;
  held: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
}

const count = (value: number | string | null) => Number(value ?? 0);
const instant = (value: number | string | null) => (value === null ? null : Number(value));

/**
 * An endpoint's deliveries by outcome: those that finished since `from`, those queued or held now,
 * and the times of its last success and failure still in its log.
 */
export async function countOutcomes(scope: Scope, endpointId: number, from: number): Promise<OutcomeCounts> {
  const finished = await selectScoped(scope, 'webhook_deliveries')
    .select([
      sql<
        number | string
      >`count(case when webhook_deliveries.status = 'succeeded' and finished_at >= ${from} then 1 end)`.as(
        'succeeded',
      ),
      sql<
        number | string
      >`count(case when webhook_deliveries.status = 'failed' and finished_at >= ${from} then 1 end)`.as(
        'failed',
      ),
      sql<
        number | string | null
      >`max(case when webhook_deliveries.status = 'succeeded' then finished_at end)`.as('last_success'),
      sql<
        number | string | null
      >`max(case when webhook_deliveries.status = 'failed' then finished_at end)`.as('last_failure'),
    ])
    .where('endpoint_id', '=', endpointId)
    .where(FINISHED)
    .executeTakeFirstOrThrow();
  const waiting = await selectScoped(scope, 'webhook_deliveries')
    .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
    .where('endpoint_id', '=', endpointId)
    .where('status', 'in', ['pending', 'retrying', 'held'])
    .groupBy('status')
    .execute();
  const waitingOf = (status: DeliveryRow['status']) =>
    count(waiting.find((r) => r.status === status)?.n ?? 0);
  return {
    succeeded: count(finished.succeeded),
    failed: count(finished.failed),
    queued: waitingOf('pending') + waitingOf('retrying'),
    held: waitingOf('held'),
    lastSuccessAt: instant(finished.last_success),
    lastFailureAt: instant(finished.last_failure),
  };
}

/**
 * The median and 95th percentile (continuous, as percentile_cont) of the durations of an endpoint's
 * attempts that started since `from`; null without attempts. PostgreSQL computes them in one
 * statement; SQLite counts, then reads the (at most four) ranks around them through an ordered scan.
 */
export async function attemptDurationPercentiles(
  scope: Scope,
  endpointId: number,
  from: number,
): Promise<{ p50: number | null; p95: number | null }> {
  const attempts = () =>
    selectScoped(scope, 'webhook_attempts')
      .innerJoin('webhook_deliveries as d', (join) =>
        join
          .onRef('d.tenant_id', '=', 'webhook_attempts.tenant_id')
          .onRef('d.id', '=', 'webhook_attempts.delivery_id'),
      )
      .where('d.endpoint_id', '=', endpointId)
      .where('webhook_attempts.started_at', '>=', from);
  if (isPostgresDb(scope.db)) {
    const row = await attempts()
      .select([
        sql<number | null>`percentile_cont(0.5) within group (order by webhook_attempts.duration_ms)`.as(
          'p50',
        ),
        sql<number | null>`percentile_cont(0.95) within group (order by webhook_attempts.duration_ms)`.as(
          'p95',
        ),
      ])
      .executeTakeFirstOrThrow();
    return { p50: instant(row.p50), p95: instant(row.p95) };
  }
  const { n } = await attempts()
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const total = Number(n);
  if (total === 0) return { p50: null, p95: null };
  const at = async (p: number) => {
    const rank = p * (total - 1);
    const lower = Math.floor(rank);
    const rows = await attempts()
      .select('webhook_attempts.duration_ms')
      .orderBy('webhook_attempts.duration_ms')
      .limit(2)
      .offset(lower)
      .execute();
    const low = rows[0]!.duration_ms;
    const high = rows[1]?.duration_ms ?? low;
    return low + (high - low) * (rank - lower);
  };
  return { p50: await at(0.5), p95: await at(0.95) };
}

/** Deliveries of each endpoint that succeeded and failed since `from`: one grouped statement. */
export async function finishedCounts(
  scope: Scope,
  endpointIds: number[],
  from: number,
): Promise<Map<number, { succeeded: number; failed: number }>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await selectScoped(scope, 'webhook_deliveries')
    .select([
      'endpoint_id',
      sql<number | string>`count(case when webhook_deliveries.status = 'succeeded' then 1 end)`.as(
        'succeeded',
      ),
      sql<number | string>`count(case when webhook_deliveries.status = 'failed' then 1 end)`.as('failed'),
    ])
    .where('endpoint_id', 'in', endpointIds)
    .where(FINISHED)
    .where('finished_at', '>=', from)
    .groupBy('endpoint_id')
    .execute();
  return new Map(
    rows.map((r) => [r.endpoint_id, { succeeded: count(r.succeeded), failed: count(r.failed) }]),
  );
}
