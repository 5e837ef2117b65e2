// The reads behind an endpoint's insight: its hourly roll-up over a window (delivery-hours.ts), its
// queue now, the last success and failure still in its log, and the last day of every endpoint of a
// list.
import { type SqlBool, sql } from 'kysely';
import { type Scope, selectScoped } from '../../platform/db/scope.js';
import { DURATION_COLUMNS } from './delivery-hours.js';
import type { DeliveryRow } from './webhook.repository.js';

/** Written into the SQL, not bound: the partial index of finished deliveries needs to see it. */
const FINISHED = sql<SqlBool>`webhook_deliveries.status in ('succeeded', 'failed')`;

const count = (value: number | string | null) => Number(value ?? 0);
const instant = (value: number | string | null) => (value === null ? null : Number(value));

export interface HourTotals {
  succeeded: number;
  failed: number;
  /** Attempts per histogram bucket (DURATION_COLUMNS). */
  durations: number[];
  durationMaxMs: number | null;
  /** The latest in every hour kept (not only the window's). */
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
}

/**
 * An endpoint's roll-up summed over the hours starting at or after `from`, and its last success and
 * failure over every hour kept: one statement over the endpoint's rows (at most 8 days of hours).
 */
export async function hourTotals(scope: Scope, endpointId: number, from: number): Promise<HourTotals> {
  const inWindow = (column: string) =>
    sql<number | string | null>`sum(case when hour_start >= ${from} then ${sql.ref(column)} else 0 end)`;
  const row = await selectScoped(scope, 'webhook_delivery_hours')
    .select([
      inWindow('succeeded').as('succeeded'),
      inWindow('failed').as('failed'),
      ...DURATION_COLUMNS.map((c) => inWindow(c).as(c)),
      sql<number | string | null>`max(case when hour_start >= ${from} then duration_max_ms end)`.as(
        'duration_max_ms',
      ),
      sql<number | string | null>`max(last_success_at)`.as('last_success_at'),
      sql<number | string | null>`max(last_failure_at)`.as('last_failure_at'),
    ])
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return {
    succeeded: count(row.succeeded),
    failed: count(row.failed),
    durations: DURATION_COLUMNS.map((c) => count(row[c])),
    durationMaxMs: instant(row.duration_max_ms),
    lastSuccessAt: instant(row.last_success_at),
    lastFailureAt: instant(row.last_failure_at),
  };
}

/** An endpoint's deliveries waiting now: queued (pending or retrying) and held. */
export async function waitingNow(
  scope: Scope,
  endpointId: number,
): Promise<{ queued: number; held: number }> {
  const waiting = await selectScoped(scope, 'webhook_deliveries')
    .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
    .where('endpoint_id', '=', endpointId)
    .where('status', 'in', ['pending', 'retrying', 'held'])
    .groupBy('status')
    .execute();
  const waitingOf = (status: DeliveryRow['status']) =>
    count(waiting.find((r) => r.status === status)?.n ?? 0);
  return { queued: waitingOf('pending') + waitingOf('retrying'), held: waitingOf('held') };
}

/**
 * The last success and failure still in an endpoint's log: they outlive the roll-up's 8 days on an
 * endpoint that has been quiet since.
 */
export async function lastEndingsInLog(
  scope: Scope,
  endpointId: number,
): Promise<{ lastSuccessAt: number | null; lastFailureAt: number | null }> {
  const row = await selectScoped(scope, 'webhook_deliveries')
    .select([
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
  return { lastSuccessAt: instant(row.last_success), lastFailureAt: instant(row.last_failure) };
}

/** Deliveries of each endpoint that succeeded and failed in the hours from `from`: one grouped statement. */
export async function finishedCounts(
  scope: Scope,
  endpointIds: number[],
  from: number,
): Promise<Map<number, { succeeded: number; failed: number }>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await selectScoped(scope, 'webhook_delivery_hours')
    .select((eb) => [
      'endpoint_id',
      eb.fn.sum<number | string>('succeeded').as('succeeded'),
      eb.fn.sum<number | string>('failed').as('failed'),
    ])
    .where('endpoint_id', 'in', endpointIds)
    .where('hour_start', '>=', from)
    .groupBy('endpoint_id')
    .execute();
  return new Map(
    rows.map((r) => [r.endpoint_id, { succeeded: count(r.succeeded), failed: count(r.failed) }]),
  );
}
