// Recording an attempt's outcome: the attempt row, the delivery's next state (decided by
// delivery-policy.ts), the endpoint's failure streak and its hourly roll-up (delivery-hours.ts), in
// one transaction, under the claim's lease.
import type { Kysely } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import type { DeliveryStatus } from '../../platform/db/tables/webhooks.js';
import type { Database } from '../../platform/db/types.js';
import type { ClaimedDelivery } from './delivery-claim.js';
import { addToDeliveryHours, HourTally } from './delivery-hours.js';
import { GONE_STATUS, nextDeliveryState, retryAfterDelayMs } from './delivery-policy.js';
import { recordSuccesses, recordSuccessesOnSqlite } from './delivery-success.js';
import { pauseEndpoint, updateFailureStreak } from './endpoint-pause.js';

export interface AttemptOutcome {
  startedAt: number;
  durationMs: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  requestHeaders: Record<string, string>;
  /** The receiver's Retry-After on a 429 or 503 answer, as sent. */
  retryAfter?: string;
}

export interface RecordedAttempt {
  /** False when the lease was lost (another worker took the delivery over): nothing was written. */
  recorded: boolean;
  status?: DeliveryStatus;
  endpointPaused?: boolean;
  /** Why it was paused here: a streak of failures, or the receiver's 410 Gone. */
  pausedFor?: 'failures' | 'gone';
  /** When a retrying delivery falls due again (retrying only). */
  nextAttemptAt?: number;
}

export interface RecordOptions {
  now: number;
  retryScheduleMs: readonly number[];
}

/**
 * Records an attempt and moves the delivery on: succeeded, retrying (after the schedule's next
 * delay, or later when the receiver's Retry-After asks), failed, or held (the endpoint was paused
 * meanwhile). A fully failed delivery extends the endpoint's failure streak and pauses it at
 * PAUSE_AFTER_FAILURES; a success ends the streak. A 410 Gone pauses the endpoint at once.
 */
export async function recordAttempt(
  db: Kysely<Database>,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  options: RecordOptions,
): Promise<RecordedAttempt> {
  if (outcome.ok) {
    const direct = isPostgresDb(db)
      ? recordSuccesses(db, [{ delivery, outcome }], options.now)
      : recordSuccessesOnSqlite(db, [{ delivery, outcome }], options.now);
    if (direct !== undefined) return (await direct)[0]!;
  }
  return db.transaction().execute(async (trx) => {
    const tally = new HourTally();
    const recorded = await recordIn(trx, delivery, outcome, options, tally);
    await addToDeliveryHours(trx, tally.rows());
    return recorded;
  });
}

type Attempt = { delivery: ClaimedDelivery; outcome: AttemptOutcome };

/**
 * recordAttempt for several attempts, with fewer commits and statements. On SQLite the whole batch
 * is one transaction: run directly on the connection when every attempt succeeded
 * (recordSuccessesOnSqlite), else through the query builder in endpoint order, so that a success
 * and a failure of one endpoint are recorded in the order they would be one by one. On PostgreSQL
 * the successes are one statement (recordSuccesses) and each failure a transaction of its own,
 * side by side on the pool. What fails together is recorded again one by one, so one bad attempt
 * loses no other.
 */
export async function recordAttempts(
  db: Kysely<Database>,
  attempts: readonly Attempt[],
  options: RecordOptions,
): Promise<PromiseSettledResult<RecordedAttempt>[]> {
  // The attempts recorded together, and what each was recorded as (undefined: one by one).
  let grouped: readonly Attempt[] = [];
  let recorded: Promise<RecordedAttempt[]> | undefined;
  if (isPostgresDb(db)) {
    grouped = attempts.filter((a) => a.outcome.ok);
    if (grouped.length > 1) recorded = recordSuccesses(db, grouped, options.now);
  } else if (attempts.length > 1) {
    grouped = attempts;
    recorded =
      (attempts.every((a) => a.outcome.ok)
        ? recordSuccessesOnSqlite(db, attempts, options.now)
        : undefined) ?? recordInOneTransaction(db, attempts, options);
  }
  const results = await recorded?.catch(() => undefined);
  const together = new Map<Attempt, RecordedAttempt>();
  for (const [i, result] of (results ?? []).entries()) together.set(grouped[i]!, result);
  return Promise.allSettled(
    attempts.map((a) => together.get(a) ?? recordAttempt(db, a.delivery, a.outcome, options)),
  );
}

/**
 * SQLite: these attempts in one transaction, in endpoint order; the roll-up gets one upsert per
 * endpoint and hour of the batch, at its end, in key order.
 */
async function recordInOneTransaction(
  db: Kysely<Database>,
  attempts: readonly Attempt[],
  options: RecordOptions,
): Promise<RecordedAttempt[]> {
  const order = attempts
    .map((attempt, index) => ({ attempt, index }))
    .sort(
      (a, b) =>
        a.attempt.delivery.endpointId - b.attempt.delivery.endpointId ||
        a.attempt.delivery.id - b.attempt.delivery.id,
    );
  return db.transaction().execute(async (trx) => {
    const recorded: RecordedAttempt[] = new Array(attempts.length);
    const tally = new HourTally();
    for (const { attempt, index } of order) {
      recorded[index] = await recordIn(trx, attempt.delivery, attempt.outcome, options, tally);
    }
    await addToDeliveryHours(trx, tally.rows());
    return recorded;
  });
}

/**
 * Records one attempt and adds it to `tally`, which the caller adds to the roll-up last: the roll-up's
 * row is the last lock the transaction takes (after the endpoint's and the delivery's), so a
 * transaction waiting for it holds nothing that the one holding it still needs.
 */
async function recordIn(
  trx: Kysely<Database>,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  options: RecordOptions,
  tally: HourTally,
): Promise<RecordedAttempt> {
  const { now } = options;
  const number = delivery.attemptCount + 1;
  const maxAttempts = delivery.maxAttempts ?? options.retryScheduleMs.length + 1;
  // Only a failed attempt needs the endpoint's state (a paused endpoint holds the retry). On
  // PostgreSQL the row is locked as for the update of the failure streak that may follow (a share
  // lock would deadlock two failures upgrading it), so enabling the endpoint waits for this
  // transaction and then releases a `held` written here.
  let endpointQuery = trx
    .selectFrom('webhook_endpoints')
    .select(['status'])
    .where('tenant_id', '=', delivery.tenantId)
    .where('id', '=', delivery.endpointId);
  if (isPostgresDb(trx)) endpointQuery = endpointQuery.forNoKeyUpdate();
  const endpoint = outcome.ok ? undefined : await endpointQuery.executeTakeFirst();
  // The endpoint was paused while the attempt was in flight: the delivery stays held (it is sent
  // again on enable; receivers deduplicate on the id) and the streak is left alone.
  let current = trx
    .selectFrom('webhook_deliveries')
    .select(['status'])
    .where('tenant_id', '=', delivery.tenantId)
    .where('id', '=', delivery.id)
    .where('lease_owner', '=', delivery.leaseToken);
  if (isPostgresDb(trx)) current = current.forUpdate();
  const row = await current.executeTakeFirst();
  if (!row || !['pending', 'retrying', 'held'].includes(row.status)) return { recorded: false };
  const gone = !outcome.ok && outcome.statusCode === GONE_STATUS;
  const { status, nextAttemptAt, finished } = nextDeliveryState({
    number,
    maxAttempts,
    ok: outcome.ok,
    gone,
    retryAfterMs: retryAfterDelayMs(outcome.retryAfter, now),
    current: row.status,
    endpointStatus: endpoint?.status,
    countsTowardPause: delivery.countsTowardPause,
    retryScheduleMs: options.retryScheduleMs,
    now,
  });
  const updated = await trx
    .updateTable('webhook_deliveries')
    .set({
      status,
      attempt_count: number,
      next_attempt_at: nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      request_headers: JSON.stringify(outcome.requestHeaders),
      finished_at: finished ? now : null,
    })
    .where('tenant_id', '=', delivery.tenantId)
    .where('id', '=', delivery.id)
    .where('lease_owner', '=', delivery.leaseToken)
    .where('status', '=', row.status)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) return { recorded: false };

  const durationMs = Math.max(0, Math.round(outcome.durationMs));
  await trx
    .insertInto('webhook_attempts')
    .values({
      tenant_id: delivery.tenantId,
      delivery_id: delivery.id,
      number,
      started_at: outcome.startedAt,
      duration_ms: durationMs,
      status_code: outcome.statusCode,
      error: outcome.error,
      response_excerpt: outcome.responseExcerpt,
    })
    .execute();
  tally.attempt(delivery.tenantId, delivery.endpointId, outcome.startedAt, durationMs);
  if (finished) tally.ended(delivery.tenantId, delivery.endpointId, status === 'succeeded', now);

  let pausedFor: RecordedAttempt['pausedFor'];
  if (gone && endpoint?.status === 'active') {
    // The receiver says the URL is gone for good: paused at once, whatever kind of delivery asked.
    if (
      await pauseEndpoint(
        { db: trx, tenantId: delivery.tenantId },
        delivery.endpointId,
        { kind: 'gone' },
        now,
      )
    )
      pausedFor = 'gone';
  } else if (finished && delivery.countsTowardPause) {
    if (await updateFailureStreak(trx, delivery, status === 'succeeded', now)) pausedFor = 'failures';
  }
  const endpointPaused = pausedFor !== undefined;
  const paused = endpointPaused ? { endpointPaused, pausedFor } : { endpointPaused };
  return nextAttemptAt === null
    ? { recorded: true, status, ...paused }
    : { recorded: true, status, ...paused, nextAttemptAt };
}
