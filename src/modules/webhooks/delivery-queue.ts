// The delivery queue's statements, one small function each (graphile-worker style). The worker
// claims due deliveries with a lease, sends outside any transaction, then records the attempt.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type Kysely, PostgresAdapter, type SqlBool, sql } from 'kysely';
import type { DeliveryStatus } from '../../platform/db/tables/webhooks.js';
import type { Database, Db } from '../../platform/db/types.js';

export const NOTIFY_CHANNEL = 'furrow_webhook_deliveries';
/** Consecutive fully failed deliveries that pause an endpoint (spec 6.4). */
export const PAUSE_AFTER_FAILURES = 5;
/** Finished deliveries kept per endpoint for the log (spec 8). */
export const LOG_SIZE = 50;

/**
 * Statuses written into the SQL rather than bound as parameters: the partial indexes of queued and
 * of finished deliveries serve a query only when its condition visibly implies theirs (SQLite never
 * looks inside a parameter).
 */
const QUEUED = sql<SqlBool>`webhook_deliveries.status in ('pending', 'retrying')`;
const FINISHED = sql<SqlBool>`webhook_deliveries.status in ('succeeded', 'failed')`;

/** Wakes the workers of this process (SQLite; on PostgreSQL NOTIFY reaches every process). */
export const localWakeUp = new EventEmitter();

export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Tells idle workers that deliveries are due. On PostgreSQL the NOTIFY joins the caller's
 * transaction and is delivered at commit (never for a rollback). On SQLite the single connection
 * is busy until the transaction ends, so a woken worker's claim runs after the commit.
 */
export async function notifyDeliveryWorkers(db: Db): Promise<void> {
  if (isPostgres(db)) await sql`select pg_notify(${NOTIFY_CHANNEL}, '')`.execute(db);
  else localWakeUp.emit('wake');
}

export interface ClaimedDelivery {
  id: number;
  tenantId: number;
  endpointId: number;
  publicId: string;
  eventType: string;
  body: string;
  attemptCount: number;
  maxAttempts: number | null;
  countsTowardPause: boolean;
  url: string;
  endpointPublicId: string;
  secretEncrypted: string;
  /** This claim's lease token: recording the attempt or releasing the lease must present it. */
  leaseToken: string;
}

export interface ClaimOptions {
  now: number;
  leaseMs: number;
  owner: string;
  limit: number;
  perEndpointLimit: number;
  /** Deliveries of this endpoint already in flight here. */
  inFlightByEndpoint: ReadonlyMap<number, number>;
  /** Deliveries in flight here: never claimed again, even when their lease has run out. */
  inFlightIds?: readonly number[];
}

/** Leases up to `limit` due deliveries, at most perEndpointLimit in flight per endpoint. */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  options: ClaimOptions,
): Promise<ClaimedDelivery[]> {
  const { now, limit } = options;
  if (limit <= 0) return [];
  const saturated = [...options.inFlightByEndpoint]
    .filter(([, n]) => n >= options.perEndpointLimit)
    .map(([id]) => id);
  return db.transaction().execute(async (trx) => {
    let candidates = trx
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where(QUEUED)
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
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
      // A few more than the free slots, for endpoints that reach their cap within this batch.
      .limit(Math.min(limit * 4, limit + 64));
    if (saturated.length > 0) candidates = candidates.where('endpoint_id', 'not in', saturated);
    const inFlight = options.inFlightIds ?? [];
    if (inFlight.length > 0) candidates = candidates.where('id', 'not in', inFlight);
    if (isPostgres(trx)) candidates = candidates.forUpdate().skipLocked();
    const rows = await candidates.execute();

    const taken = new Map(options.inFlightByEndpoint);
    const chosen: number[] = [];
    for (const row of rows) {
      if (chosen.length >= limit) break;
      const n = taken.get(row.endpoint_id) ?? 0;
      if (n >= options.perEndpointLimit) continue;
      taken.set(row.endpoint_id, n + 1);
      chosen.push(row.id);
    }
    if (chosen.length === 0) return [];
    // Each claim leases under its own token, so a lease that ran out and was claimed again (by any
    // worker, this one included) can no longer be recorded by the first claim.
    const leaseToken = `${options.owner}/${randomBytes(8).toString('hex')}`;
    await trx
      .updateTable('webhook_deliveries')
      .set({ lease_owner: leaseToken, lease_until: now + options.leaseMs })
      .where('id', 'in', chosen)
      .execute();
    const claimed = await trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', (join) =>
        join.onRef('e.tenant_id', '=', 'd.tenant_id').onRef('e.id', '=', 'd.endpoint_id'),
      )
      .select([
        'd.id',
        'd.tenant_id',
        'd.endpoint_id',
        'd.public_id',
        'd.event_type',
        'd.body',
        'd.attempt_count',
        'd.max_attempts',
        'd.counts_toward_pause',
        'e.url',
        'e.public_id as endpoint_public_id',
        'e.secret_encrypted',
      ])
      .where('d.id', 'in', chosen)
      .orderBy('d.next_attempt_at')
      .orderBy('d.id')
      .execute();
    return claimed.map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      endpointId: r.endpoint_id,
      publicId: r.public_id,
      eventType: r.event_type,
      body: r.body,
      attemptCount: r.attempt_count,
      maxAttempts: r.max_attempts,
      countsTowardPause: r.counts_toward_pause === 1,
      url: r.url,
      endpointPublicId: r.endpoint_public_id,
      secretEncrypted: r.secret_encrypted,
      leaseToken,
    }));
  });
}

/** Gives a lease back without recording an attempt (a worker stopping before it sent). */
export async function releaseLease(db: Kysely<Database>, delivery: ClaimedDelivery): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', delivery.id)
    .where('lease_owner', '=', delivery.leaseToken)
    .execute();
}

export interface AttemptOutcome {
  startedAt: number;
  durationMs: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  requestHeaders: Record<string, string>;
}

export interface RecordedAttempt {
  /** False when the lease was lost (another worker took the delivery over): nothing was written. */
  recorded: boolean;
  status?: DeliveryStatus;
  endpointPaused?: boolean;
}

/**
 * Records an attempt and moves the delivery on: succeeded, retrying (after the schedule's next
 * delay), failed, or held (the endpoint was paused meanwhile). A fully failed delivery extends the
 * endpoint's failure streak and pauses it at PAUSE_AFTER_FAILURES; a success ends the streak.
 */
export async function recordAttempt(
  db: Kysely<Database>,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  options: RecordOptions,
): Promise<RecordedAttempt> {
  return db.transaction().execute((trx) => recordIn(trx, delivery, outcome, options));
}

export interface RecordOptions {
  now: number;
  retryScheduleMs: readonly number[];
}

/**
 * recordAttempt for several attempts in one transaction (one commit instead of one each), in
 * endpoint order so that concurrent batches lock endpoint rows in the same order. If the batch
 * fails, each attempt is recorded in a transaction of its own, so one bad attempt loses no other.
 */
export async function recordAttempts(
  db: Kysely<Database>,
  attempts: readonly { delivery: ClaimedDelivery; outcome: AttemptOutcome }[],
  options: RecordOptions,
): Promise<PromiseSettledResult<RecordedAttempt>[]> {
  if (attempts.length > 1) {
    const order = attempts
      .map((attempt, index) => ({ attempt, index }))
      .sort(
        (a, b) =>
          a.attempt.delivery.endpointId - b.attempt.delivery.endpointId ||
          a.attempt.delivery.id - b.attempt.delivery.id,
      );
    try {
      const results = await db.transaction().execute(async (trx) => {
        const recorded: RecordedAttempt[] = new Array(attempts.length);
        for (const { attempt, index } of order) {
          recorded[index] = await recordIn(trx, attempt.delivery, attempt.outcome, options);
        }
        return recorded;
      });
      return results.map((value) => ({ status: 'fulfilled', value }));
    } catch {
      // One by one below.
    }
  }
  return Promise.allSettled(attempts.map((a) => recordAttempt(db, a.delivery, a.outcome, options)));
}

async function recordIn(
  trx: Kysely<Database>,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  options: RecordOptions,
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
  if (isPostgres(trx)) endpointQuery = endpointQuery.forNoKeyUpdate();
  const endpoint = outcome.ok ? undefined : await endpointQuery.executeTakeFirst();
  // The endpoint was paused while the attempt was in flight: the delivery stays held (it is sent
  // again on enable; receivers deduplicate on the id) and the streak is left alone.
  let current = trx
    .selectFrom('webhook_deliveries')
    .select(['status'])
    .where('tenant_id', '=', delivery.tenantId)
    .where('id', '=', delivery.id)
    .where('lease_owner', '=', delivery.leaseToken);
  if (isPostgres(trx)) current = current.forUpdate();
  const row = await current.executeTakeFirst();
  if (!row || !['pending', 'retrying', 'held'].includes(row.status)) return { recorded: false };
  let status: DeliveryStatus;
  let nextAttemptAt: number | null = null;
  if (row.status === 'held') status = 'held';
  else if (outcome.ok) status = 'succeeded';
  else if (number >= maxAttempts) status = 'failed';
  else if (endpoint?.status === 'paused' && delivery.countsTowardPause) status = 'held';
  else {
    status = 'retrying';
    const delays = options.retryScheduleMs;
    nextAttemptAt = now + (delays[Math.min(number - 1, delays.length - 1)] ?? 0);
  }
  const finished = status === 'succeeded' || status === 'failed';
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

  await trx
    .insertInto('webhook_attempts')
    .values({
      tenant_id: delivery.tenantId,
      delivery_id: delivery.id,
      number,
      started_at: outcome.startedAt,
      duration_ms: Math.max(0, Math.round(outcome.durationMs)),
      status_code: outcome.statusCode,
      error: outcome.error,
      response_excerpt: outcome.responseExcerpt,
    })
    .execute();

  let endpointPaused = false;
  if (finished && delivery.countsTowardPause) {
    endpointPaused = await updateFailureStreak(trx, delivery, status === 'succeeded', now);
  }
  return { recorded: true, status, endpointPaused };
}

async function updateFailureStreak(
  trx: Db,
  delivery: ClaimedDelivery,
  succeeded: boolean,
  now: number,
): Promise<boolean> {
  const endpointWhere = <Q extends { where: (...args: any[]) => Q }>(q: Q) =>
    q.where('tenant_id', '=', delivery.tenantId).where('id', '=', delivery.endpointId);
  if (succeeded) {
    // Only a streak to end takes the endpoint's row lock: concurrent successes do not queue on it.
    // A paused endpoint keeps its streak until it is enabled (a success then does not hide why).
    await endpointWhere(trx.updateTable('webhook_endpoints').set({ consecutive_failures: 0 }))
      .where('consecutive_failures', '<>', 0)
      .where('status', '=', 'active')
      .execute();
    return false;
  }
  const row = await endpointWhere(
    trx
      .updateTable('webhook_endpoints')
      .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) })),
  )
    .returning(['consecutive_failures', 'status'])
    .executeTakeFirst();
  if (row?.status !== 'active' || row.consecutive_failures < PAUSE_AFTER_FAILURES) return false;
  await endpointWhere(
    trx.updateTable('webhook_endpoints').set({
      status: 'paused',
      paused_reason: `${row.consecutive_failures} consecutive deliveries failed every attempt`,
      updated_at: now,
    }),
  ).execute();
  await holdQueuedDeliveries(trx, delivery.tenantId, delivery.endpointId);
  return true;
}

/** Pausing: queued deliveries of the endpoint wait as `held` (tests and redeliveries excepted). */
export async function holdQueuedDeliveries(db: Db, tenantId: number, endpointId: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'held', next_attempt_at: null })
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where('status', 'in', ['pending', 'retrying'])
    .where('counts_toward_pause', '=', 1)
    .execute();
}

/** Keeps the newest LOG_SIZE finished deliveries of an endpoint; queued ones are never pruned. */
export async function pruneDeliveryLog(db: Db, tenantId: number, endpointId: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where(FINISHED)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('endpoint_id', '=', endpointId)
        .where(FINISHED)
        .orderBy('finished_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1_000_000)
        .offset(LOG_SIZE),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** When the next queued delivery falls due, or the next lease of another worker expires. */
export async function nextDueAt(db: Kysely<Database>, now: number): Promise<number | null> {
  const free = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where(QUEUED)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  const leased = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('lease_until').as('at'))
    .where(QUEUED)
    .where('lease_until', '>=', now)
    .executeTakeFirst();
  const times = [free?.at, leased?.at].filter((v) => v !== null && v !== undefined).map(Number);
  return times.length > 0 ? Math.min(...times) : null;
}
