// Recording successful attempts, which write what recordIn (delivery-record.ts) writes for a 2xx
// answer with fewer statements: on PostgreSQL one statement with no transaction around it (the
// delivery's new state under the claim's lease, the attempt row, the end of the endpoint's failure
// streak and the hourly roll-up) for any number of attempts at once; on SQLite, statements written
// out once in one transaction run directly on the connection. Failed attempts keep recordIn (they
// may pause the endpoint).
import { CompiledQuery } from 'kysely';
import { type DirectStatements, directTransaction } from '../../platform/db/direct-transaction.js';
import type { DeliveryStatus } from '../../platform/db/tables/webhooks.js';
import type { Db } from '../../platform/db/types.js';
import type { ClaimedDelivery } from './delivery-claim.js';
import {
  addToDeliveryHoursNow,
  DURATION_COLUMNS,
  durationBucket,
  HourTally,
  hourStart,
} from './delivery-hours.js';
import type { AttemptOutcome, RecordedAttempt } from './delivery-record.js';

const HOURS = 'webhook_delivery_hours';

/**
 * One row per attempt comes in as arrays ($1-$11). Locks are taken in the order of the transaction
 * it replaces: the deliveries (a lost lease or a finished delivery updates nothing, and then nothing
 * else is written for it), the endpoints whose streak ends, then the roll-up's rows in key order (its
 * source waits for the streak's update). A delivery held meanwhile (its endpoint was paused) stays
 * held: the attempt is counted, not the delivery's end.
 */
const RECORD_SUCCESSES = `
with input as (
  select * from unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::bigint[], $6::int[],
                       $7::int[], $8::text[], $9::text[], $10::bigint[], $11::int[])
    as i(tenant_id, id, lease_owner, number, started_at, duration_ms, status_code, response_excerpt,
         request_headers, attempt_hour, bucket)
),
updated as (
  update webhook_deliveries d
  set status = case when d.status = 'held' then 'held' else 'succeeded' end,
      attempt_count = i.number, next_attempt_at = null, lease_owner = null, lease_until = null,
      request_headers = i.request_headers,
      finished_at = case when d.status = 'held' then null else $12::bigint end
  from input i
  where d.tenant_id = i.tenant_id and d.id = i.id and d.lease_owner = i.lease_owner
    and d.status in ('pending', 'retrying', 'held')
  returning d.tenant_id, d.id, d.endpoint_id, d.status, d.counts_toward_pause
),
attempts as (
  insert into webhook_attempts
    (tenant_id, delivery_id, number, started_at, duration_ms, status_code, error, response_excerpt)
  select i.tenant_id, i.id, i.number, i.started_at, i.duration_ms, i.status_code, null, i.response_excerpt
  from updated u join input i on i.tenant_id = u.tenant_id and i.id = u.id
),
streak as (
  update webhook_endpoints e set consecutive_failures = 0
  from (select distinct tenant_id, endpoint_id from updated
        where status = 'succeeded' and counts_toward_pause = 1) s
  where e.tenant_id = s.tenant_id and e.id = s.endpoint_id
    and e.consecutive_failures <> 0 and e.status = 'active'
  returning e.id
),
tally as (
  select u.tenant_id, u.endpoint_id, i.attempt_hour as hour_start, 0 as succeeded, 1 as attempts,
         i.bucket, i.duration_ms, null::bigint as success_at
  from updated u join input i on i.tenant_id = u.tenant_id and i.id = u.id
  union all
  select u.tenant_id, u.endpoint_id, $13::bigint, 1, 0, null, null, $12::bigint
  from updated u where u.status = 'succeeded'
),
hours as (
  insert into ${HOURS} (tenant_id, endpoint_id, hour_start, succeeded, failed, attempts,
    ${DURATION_COLUMNS.join(', ')}, duration_max_ms, last_success_at, last_failure_at)
  select tenant_id, endpoint_id, hour_start, sum(succeeded), 0, sum(attempts),
    ${DURATION_COLUMNS.map((_, b) => `count(*) filter (where bucket = ${b})`).join(', ')},
    max(duration_ms), max(success_at), null
  from tally
  where (select count(*) from streak) >= 0
  group by tenant_id, endpoint_id, hour_start
  order by tenant_id, endpoint_id, hour_start
  on conflict (tenant_id, endpoint_id, hour_start) do update set
    succeeded = ${HOURS}.succeeded + excluded.succeeded,
    attempts = ${HOURS}.attempts + excluded.attempts,
    ${DURATION_COLUMNS.map((c) => `${c} = ${HOURS}.${c} + excluded.${c}`).join(', ')},
    duration_max_ms = greatest(${HOURS}.duration_max_ms, excluded.duration_max_ms),
    last_success_at = greatest(${HOURS}.last_success_at, excluded.last_success_at)
)
select id, status from updated`;

/**
 * Records these successful attempts (outcome.ok) at `now` in one statement; answers for each, in
 * the order given, whether it was recorded (not when its lease was lost) and the delivery's status.
 */
export async function recordSuccesses(
  db: Db,
  attempts: readonly { delivery: ClaimedDelivery; outcome: AttemptOutcome }[],
  now: number,
): Promise<RecordedAttempt[]> {
  const columns: unknown[][] = Array.from({ length: 11 }, () => []);
  for (const { delivery, outcome } of attempts) {
    const durationMs = Math.max(0, Math.round(outcome.durationMs));
    const values = [
      delivery.tenantId,
      delivery.id,
      delivery.leaseToken,
      delivery.attemptCount + 1,
      outcome.startedAt,
      durationMs,
      outcome.statusCode,
      outcome.responseExcerpt,
      JSON.stringify(outcome.requestHeaders),
      hourStart(outcome.startedAt),
      durationBucket(durationMs),
    ];
    for (const [i, value] of values.entries()) columns[i]!.push(value);
  }
  const { rows } = await db.executeQuery<{ id: number; status: DeliveryStatus }>(
    CompiledQuery.raw(RECORD_SUCCESSES, [...columns, now, hourStart(now)]),
  );
  const statusOf = new Map(rows.map((r) => [Number(r.id), r.status]));
  return attempts.map(({ delivery }) => {
    const status = statusOf.get(delivery.id);
    return status === undefined ? { recorded: false } : { recorded: true, status, endpointPaused: false };
  });
}

/** SQLite: a successful attempt's delivery, under the lease (recordIn's first two statements in one). */
const SQLITE_SUCCEEDED = `update webhook_deliveries
  set status = case when status = 'held' then 'held' else 'succeeded' end,
      attempt_count = ?, next_attempt_at = null, lease_owner = null, lease_until = null,
      request_headers = ?, finished_at = case when status = 'held' then null else ? end
  where tenant_id = ? and id = ? and lease_owner = ? and status in ('pending', 'retrying', 'held')
  returning status`;
const SQLITE_ATTEMPT = `insert into webhook_attempts
  (tenant_id, delivery_id, number, started_at, duration_ms, status_code, error, response_excerpt)
  values (?, ?, ?, ?, ?, ?, null, ?)`;
const SQLITE_STREAK_ENDS = `update webhook_endpoints set consecutive_failures = 0
  where tenant_id = ? and id = ? and consecutive_failures <> 0 and status = 'active'`;

/**
 * SQLite: records these successful attempts at `now` in one transaction run directly on the
 * connection (direct-transaction.ts): per attempt the delivery's update under the lease and the
 * attempt's insert, the streak's end only when it may end, then the roll-up. Undefined when `db` is
 * not a SQLite handle's own Kysely instance.
 */
export function recordSuccessesOnSqlite(
  db: Db,
  attempts: readonly { delivery: ClaimedDelivery; outcome: AttemptOutcome }[],
  now: number,
): Promise<RecordedAttempt[]> | undefined {
  return directTransaction(db, (statements) => {
    const tally = new HourTally();
    const recorded = attempts.map(({ delivery, outcome }) =>
      recordSuccessNow(statements, delivery, outcome, now, tally),
    );
    addToDeliveryHoursNow(statements, tally.rows());
    return recorded;
  });
}

function recordSuccessNow(
  statements: DirectStatements,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  now: number,
  tally: HourTally,
): RecordedAttempt {
  const number = delivery.attemptCount + 1;
  const [row] = statements.all<{ status: DeliveryStatus }>(SQLITE_SUCCEEDED, [
    number,
    JSON.stringify(outcome.requestHeaders),
    now,
    delivery.tenantId,
    delivery.id,
    delivery.leaseToken,
  ]);
  if (row === undefined) return { recorded: false };
  const durationMs = Math.max(0, Math.round(outcome.durationMs));
  statements.run(SQLITE_ATTEMPT, [
    delivery.tenantId,
    delivery.id,
    number,
    outcome.startedAt,
    durationMs,
    outcome.statusCode,
    outcome.responseExcerpt,
  ]);
  tally.attempt(delivery.tenantId, delivery.endpointId, outcome.startedAt, durationMs);
  if (row.status === 'succeeded') {
    tally.ended(delivery.tenantId, delivery.endpointId, true, now);
    if (delivery.countsTowardPause)
      statements.run(SQLITE_STREAK_ENDS, [delivery.tenantId, delivery.endpointId]);
  }
  return { recorded: true, status: row.status, endpointPaused: false };
}
