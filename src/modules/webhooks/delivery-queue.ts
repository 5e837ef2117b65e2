// The delivery queue's statements, one small function each (graphile-worker style). The worker
// claims due deliveries with a lease, sends outside any transaction, then records the attempt.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type Kysely, type SqlBool, sql } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import type { DeliveryStatus } from '../../platform/db/tables/webhooks.js';
import type { Database, Db } from '../../platform/db/types.js';
import { nextDeliveryState, pausesAfter } from './delivery-policy.js';

export const NOTIFY_CHANNEL = 'furrow_webhook_deliveries';
export { PAUSE_AFTER_FAILURES } from './delivery-policy.js';
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

/**
 * Tells idle workers that deliveries are due. On PostgreSQL the NOTIFY joins the caller's
 * transaction and is delivered at commit (never for a rollback). On SQLite the single connection
 * is busy until the transaction ends, so a woken worker's claim runs after the commit.
 */
export async function notifyDeliveryWorkers(db: Db): Promise<void> {
  if (isPostgresDb(db)) await sql`select pg_notify(${NOTIFY_CHANNEL}, '')`.execute(db);
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
  /** Deliveries of one endpoint in flight here, at most. */
  perEndpointLimit: number;
  /**
   * Deliveries of one tenant's endpoints in flight here, at most, while no other tenant has any
   * (default: no cap but the slots); see claimDueDeliveries.
   */
  perTenantLimit?: number;
  /** Deliveries of this endpoint already in flight here. */
  inFlightByEndpoint: ReadonlyMap<number, number>;
  /** Deliveries of this tenant already in flight here. */
  inFlightByTenant?: ReadonlyMap<number, number>;
  /** Deliveries in flight here: never claimed again, even when their lease has run out. */
  inFlightIds?: readonly number[];
  /**
   * The endpoints with queued deliveries as an earlier claim found them, if no delivery has been
   * queued since for an endpoint that was not among them; otherwise they are looked up.
   */
  queuedEndpoints?: readonly QueuedEndpoint[] | undefined;
}

export interface QueuedEndpoint {
  endpointId: number;
  tenantId: number;
}

export interface Claim {
  deliveries: ClaimedDelivery[];
  /** Due deliveries were left because their endpoint or tenant has its share of the slots here. */
  capped: boolean;
  /** When capped: the next time a queued delivery falls due after `now` (null: none). */
  nextDueAt?: number | null;
  /** The endpoints with queued deliveries, when this claim looked them up. */
  queuedEndpoints?: QueuedEndpoint[];
}

interface Candidate {
  id: number;
  tenant_id: number;
  endpoint_id: number;
}

/**
 * Leases up to `limit` due deliveries, oldest first, while each endpoint and each tenant stays within
 * its cap of deliveries in flight here. An endpoint's deliveries are claimed in order.
 *
 * A tenant's cap is perTenantLimit while other tenants have nothing in flight here, and otherwise the
 * same share of the slots they leave (half of them by default; at least one): however many tenants
 * fill their shares, a tenant that comes next finds free slots.
 */
export async function claimDueDeliveries(db: Kysely<Database>, options: ClaimOptions): Promise<Claim> {
  const { now, limit, perEndpointLimit } = options;
  if (limit <= 0) return { deliveries: [], capped: false };
  return db.transaction().execute(async (trx) => {
    const byEndpoint = new Map(options.inFlightByEndpoint);
    const byTenant = new Map(options.inFlightByTenant ?? []);
    // `limit` is the free slots: the slots are those and the ones in flight.
    let held = [...byTenant.values()].reduce((sum, n) => sum + n, 0);
    const slots = limit + held;
    const perTenantLimit = options.perTenantLimit ?? slots;
    // perTenantLimit of the slots when the other tenants hold none; that share of what they leave.
    const tenantFull = (tenantId: number) => {
      const mine = byTenant.get(tenantId) ?? 0;
      const left = slots - (held - mine);
      return mine >= Math.max(1, Math.floor((left * perTenantLimit) / slots));
    };
    const chosen: number[] = [];
    let capped = false;
    /** Takes what the caps allow; answers how many were left for a cap. */
    const take = (rows: readonly Candidate[]): number => {
      let left = 0;
      for (const row of rows) {
        if (chosen.length >= limit) break;
        const endpoint = byEndpoint.get(row.endpoint_id) ?? 0;
        if (endpoint >= perEndpointLimit || tenantFull(row.tenant_id)) {
          left += 1;
          continue;
        }
        byEndpoint.set(row.endpoint_id, endpoint + 1);
        byTenant.set(row.tenant_id, (byTenant.get(row.tenant_id) ?? 0) + 1);
        held += 1;
        chosen.push(row.id);
      }
      if (left > 0) capped = true;
      return left;
    };
    const excluded = () => [...(options.inFlightIds ?? []), ...chosen];
    // The oldest due deliveries: a few more than the free slots, for endpoints that reach their cap
    // within this batch, but not much more than one tenant's share (the oldest are mostly one busy
    // tenant's, and what follows them is mostly its own too).
    const window = Math.min(limit * 4, limit + 64);
    const oldestWindow = Math.min(window, Math.min(limit, perTenantLimit) + perEndpointLimit);
    const oldest = await oldestDue(trx, now, oldestWindow, excluded());
    take(oldest);
    // What follows may all be capped receivers' backlogs, however long: the others' due deliveries
    // are then looked up endpoint by endpoint, so reaching them never means reading those backlogs.
    let walked: QueuedEndpoint[] | undefined;
    if (chosen.length < limit && oldest.length === oldestWindow) {
      if (!options.queuedEndpoints) walked = await endpointsWithQueuedDeliveries(trx);
      const endpoints = options.queuedEndpoints ?? walked ?? [];
      for (;;) {
        const open: number[] = [];
        for (const { endpointId, tenantId } of endpoints) {
          const full = (byEndpoint.get(endpointId) ?? 0) >= perEndpointLimit || tenantFull(tenantId);
          // Its queued deliveries may be due: they wait for its attempts in flight to finish.
          if (full) capped = true;
          else open.push(endpointId);
        }
        const heads = await dueHeads(trx, {
          now,
          endpointIds: open,
          skipIds: excluded(),
          perEndpoint: perEndpointLimit,
          window,
        });
        const left = take(heads);
        // Another round only when this one was cut by the window and filled a cap: the next leaves
        // that endpoint or tenant out. Caps only tighten as slots are taken, and each round caps at
        // least one more, so the rounds are few.
        if (chosen.length >= limit || heads.length < window || left === 0) break;
      }
    }
    const answer = { capped, ...(walked ? { queuedEndpoints: walked } : {}) };
    if (chosen.length === 0) {
      return { ...answer, deliveries: [], ...(capped ? { nextDueAt: await nextDueAfter(trx, now) } : {}) };
    }
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
        // A worker left with capped deliveries sleeps until the next one falls due: answered here
        // rather than by another statement.
        (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select((n) => n.fn.min('webhook_deliveries.next_attempt_at').as('at'))
            .where(QUEUED)
            .where('webhook_deliveries.next_attempt_at', '>', now)
            .as('next_due_at'),
      ])
      .where('d.id', 'in', chosen)
      .orderBy('d.next_attempt_at')
      .orderBy('d.id')
      .execute();
    const deliveries = claimed.map((r) => ({
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
    const nextDueAt = claimed[0]?.next_due_at;
    return {
      ...answer,
      deliveries,
      ...(capped
        ? { nextDueAt: nextDueAt === null || nextDueAt === undefined ? null : Number(nextDueAt) }
        : {}),
    };
  });
}

/** The oldest due deliveries, up to `window` (locked on PostgreSQL, skipping those another claim holds). */
async function oldestDue(
  trx: Kysely<Database>,
  now: number,
  window: number,
  skipIds: readonly number[],
): Promise<Candidate[]> {
  let query = trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'tenant_id', 'endpoint_id'])
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
    .limit(window);
  if (skipIds.length > 0) query = query.where('id', 'not in', skipIds);
  if (isPostgresDb(trx)) query = query.forUpdate().skipLocked();
  return query.execute();
}

/**
 * Endpoints with queued deliveries, one index step each (a loose index scan of the queue by
 * endpoint): as many steps as such endpoints, whatever the number of deliveries queued.
 */
async function endpointsWithQueuedDeliveries(
  trx: Kysely<Database>,
): Promise<{ endpointId: number; tenantId: number }[]> {
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
           (select tenant_id from webhook_endpoints where id = queued.endpoint_id) as tenant_id
    from queued where endpoint_id is not null`.execute(trx);
  return rows.map((r) => ({ endpointId: Number(r.endpoint_id), tenantId: Number(r.tenant_id) }));
}

/**
 * The first due deliveries of each of these endpoints (up to `perEndpoint` each, read from the
 * endpoint's place in the queue index), oldest first.
 */
async function dueHeads(
  trx: Kysely<Database>,
  options: {
    now: number;
    endpointIds: readonly number[];
    skipIds: readonly number[];
    perEndpoint: number;
    window: number;
  },
): Promise<Candidate[]> {
  const { now, endpointIds, skipIds, perEndpoint } = options;
  if (endpointIds.length === 0) return [];
  // Due deliveries of the outer query's endpoint `e`, in the order of the queue index, which gives
  // the first few without reading the rest (endpoint ids are unique across tenants).
  const dueOfEndpoint = sql<SqlBool>`webhook_deliveries.endpoint_id = e.id and ${QUEUED}
    and webhook_deliveries.next_attempt_at <= ${now}
    and (webhook_deliveries.lease_until is null or webhook_deliveries.lease_until < ${now})
    and (webhook_deliveries.counts_toward_pause = 0 or e.status = 'active')
    ${skipIds.length > 0 ? sql`and webhook_deliveries.id not in (${sql.join(skipIds)})` : sql``}`;
  const endpoints = trx.selectFrom('webhook_endpoints as e').where('e.id', 'in', endpointIds);
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
      .forUpdate('h')
      .skipLocked()
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
  /** When a retrying delivery falls due again (retrying only). */
  nextAttemptAt?: number;
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
  const { status, nextAttemptAt, finished } = nextDeliveryState({
    number,
    maxAttempts,
    ok: outcome.ok,
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
  return nextAttemptAt === null
    ? { recorded: true, status, endpointPaused }
    : { recorded: true, status, endpointPaused, nextAttemptAt };
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
  if (!row || !pausesAfter(row.consecutive_failures, row.status)) return false;
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

/**
 * When the next queued delivery falls due after `now`: one step in the queue index, however many
 * are due now (those wait for a slot, and the attempts that free it wake the worker).
 */
async function nextDueAfter(db: Kysely<Database>, now: number): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where(QUEUED)
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}
