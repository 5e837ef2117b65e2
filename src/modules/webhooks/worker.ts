// The delivery worker: claims due deliveries with a lease, sends them outside any transaction,
// records each attempt. Any number of workers share one database. It sleeps until a wake-up
// (LISTEN/NOTIFY on PostgreSQL, an in-process signal on SQLite) or the next due time.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../config.js';
import type { BackgroundService } from '../../platform/background.js';
import type { Clock } from '../../platform/clock.js';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { AllowList } from './address-guard.js';
import { fairShares } from './claim-shares.js';
import { type ClaimedDelivery, claimDueDeliveries, type QueuedEndpoint } from './delivery-claim.js';
import { pruneDeliveryLog } from './delivery-log.js';
import { nextDueAt } from './delivery-queue.js';
import {
  type AttemptOutcome,
  type RecordedAttempt,
  recordAttempt,
  recordAttempts,
} from './delivery-record.js';
import { localWakeUp, NOTIFY_CHANNEL } from './delivery-wake-up.js';
import { baseRequestHeaders } from './events.js';
import { createSender, type Sender, type SendResult } from './sender.js';
import { decryptSecret, signPayload } from './signing.js';

/** Deliveries in flight in one worker process (its slots; on PostgreSQL, at most the pool's size less 2). */
export const GLOBAL_CONCURRENCY = 64;
/** The fair shares of a process's slots (claim-shares.ts), for the benchmark that sizes its load by them. */
export { fairShares } from './claim-shares.js';
/**
 * PostgreSQL connections of a process that delivers (serve with role all or worker): 16 attempts in
 * flight, each recording on a connection of its own, its LISTEN and one for claiming.
 */
export const WORKER_POOL_SIZE = 18;
/**
 * A lease outlives the timeout by this much, so a live worker records before it expires (the
 * recording may wait for a pooled connection and the database). Each claim has its own lease token.
 */
export const LEASE_MARGIN_MS = 30_000;
/** PostgreSQL connections of the pool a worker leaves to others: its LISTEN and one for claiming. */
const RESERVED_CONNECTIONS = 2;
/**
 * While deliveries are in flight, finished ones wake the claiming loop only once this share of a
 * tenant's slots has been freed since the last claim (8 of 32): one claim transaction then leases a
 * batch instead of one delivery at a time, and the other slots keep sending meanwhile. New events
 * wake it at once.
 */
const CLAIM_BATCH_SHARE = 4;
/**
 * An endpoint's log is pruned (to its newest LOG_SIZE finished deliveries) after this many of its
 * deliveries finished here, and whenever the worker runs out of due work: one prune per batch.
 */
const PRUNE_EVERY = 25;
/** Upper bound of an idle sleep: covers a missed notification or another process's expired lease. */
const IDLE_CHECK_MS = 5_000;
/**
 * While the database is unavailable: the pause before claiming, listening or recording an attempt
 * again. An attempt is recorded again until its lease runs out, so a short outage neither loses
 * the answer of a receiver nor makes the delivery go out a second time.
 */
const UNAVAILABLE_RETRY_MS = 1_000;

export interface DeliveryWorkerDeps {
  database: DatabaseHandle;
  clock: Clock;
  config: Pick<
    Config,
    'webhookRetryScheduleMs' | 'webhookTimeoutMs' | 'webhookAllowPrivateHosts' | 'webhookCaFile'
  >;
  secretKey: Buffer;
  logger?: FastifyBaseLogger | undefined;
}

export interface DeliveryWorkerOptions {
  globalConcurrency?: number;
  /** Default: ENDPOINT_SHARE of the slots (claim-shares.ts). */
  perEndpointConcurrency?: number;
  /** Default: TENANT_SHARE of the slots (claim-shares.ts). */
  perTenantConcurrency?: number;
  /** Longest idle sleep without a wake-up (default 5 s). */
  idleCheckMs?: number;
}

interface PendingRecord {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
  resolve(recorded: RecordedAttempt): void;
  reject(err: unknown): void;
}

export class DeliveryWorker implements BackgroundService {
  readonly name = 'webhook delivery worker';
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly sender: Sender;
  private readonly globalLimit: number;
  private readonly perEndpointLimit: number;
  private readonly perTenantLimit: number;
  private readonly claimBatch: number;
  private readonly idleCheckMs: number;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly inFlightByEndpoint = new Map<number, number>();
  private readonly inFlightByTenant = new Map<number, number>();
  /** Deliveries finished since the last claim. */
  private freedSinceClaim = 0;
  /**
   * The endpoints with queued deliveries as the last claim that needed them found them; looked up
   * again after anything may have queued deliveries elsewhere (a wake-up by an event, a timer).
   */
  private queuedEndpoints: QueuedEndpoint[] | undefined;
  /** Counts the times the endpoints with queued deliveries may have changed. */
  private queuedEndpointsVersion = 0;
  /** Finished deliveries per endpoint since its log was last pruned: "tenantId:endpointId" → n. */
  private readonly unpruned = new Map<string, number>();
  /** Attempts waiting to be recorded by the next batch, and whether a batch is being written. */
  private toRecord: PendingRecord[] = [];
  private recording = false;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private listener: pg.PoolClient | undefined;
  /** When the loop's current sleep ends (clock time), while it sleeps. */
  private sleepingUntil: number | undefined;
  /** LISTEN attempts failed in a row: only the first is logged, and the recovery. */
  private listenFailures = 0;
  /** New deliveries may have been queued (by this process or another): a wake-up by an event. */
  private readonly onWake = () => {
    this.forgetQueuedEndpoints();
    this.wake();
  };

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    options: DeliveryWorkerOptions = {},
  ) {
    // Every attempt in flight records on its own pooled connection: no more than the pool serves.
    const poolMax = deps.database.pool?.options.max;
    const wanted = options.globalConcurrency ?? GLOBAL_CONCURRENCY;
    this.globalLimit =
      poolMax === undefined ? wanted : Math.max(1, Math.min(wanted, poolMax - RESERVED_CONNECTIONS));
    const shares = fairShares(this.globalLimit);
    this.perEndpointLimit = options.perEndpointConcurrency ?? shares.perEndpoint;
    this.perTenantLimit = options.perTenantConcurrency ?? shares.perTenant;
    this.claimBatch = Math.max(
      1,
      Math.floor(Math.min(this.globalLimit, this.perTenantLimit) / CLAIM_BATCH_SHARE),
    );
    this.idleCheckMs = options.idleCheckMs ?? IDLE_CHECK_MS;
    this.sender = createSender({
      timeoutMs: deps.config.webhookTimeoutMs,
      allowList: new AllowList(deps.config.webhookAllowPrivateHosts),
      caFile: deps.config.webhookCaFile,
    });
  }

  /**
   * One deterministic step for tests: claims what is due now (up to the caps), sends it, records
   * every attempt, and answers how many attempts were made.
   */
  async runOnce(): Promise<number> {
    // A step hears no wake-ups: it looks at the queue afresh.
    this.forgetQueuedEndpoints();
    const { claimed } = await this.claim();
    await Promise.all(claimed.map((delivery) => this.inFlight.get(delivery.id)));
    return claimed.length;
  }

  /** runOnce until nothing more is due now. */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    await this.pruneLogs(0);
    return total;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    localWakeUp.on('wake', this.onWake);
    await this.listen();
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    if (!this.running) {
      await this.sender.close();
      return;
    }
    this.running = false;
    localWakeUp.off('wake', this.onWake);
    this.wake();
    await this.loopDone;
    // Attempts in flight finish (each is bounded by the timeout) and are recorded.
    await Promise.allSettled([...this.inFlight.values()]);
    if (this.listener) {
      const listener = this.listener;
      this.listener = undefined;
      listener.removeAllListeners('notification');
      listener.removeAllListeners('error');
      listener.on('error', () => {});
      // Destroyed rather than returned: a pooled connection must not keep listening.
      listener.release(true);
    }
    await this.sender.close();
  }

  private forgetQueuedEndpoints(): void {
    this.queuedEndpoints = undefined;
    this.queuedEndpointsVersion += 1;
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async listen(): Promise<void> {
    const pool = this.deps.database.pool;
    if (!pool || !this.running) return;
    let client: pg.PoolClient | undefined;
    let released = false;
    // Destroyed rather than returned: a pooled connection must not keep listening. Once only, from
    // whichever of the error event and the failed LISTEN comes first.
    const drop = (lost: pg.PoolClient) => {
      if (released) return;
      released = true;
      lost.removeListener('notification', this.onWake);
      lost.release(true);
    };
    try {
      client = await pool.connect();
      const connection = client;
      connection.on('notification', this.onWake);
      connection.once('error', (err) => {
        const wasListening = this.listener === connection;
        drop(connection);
        // An error during LISTEN fails that query too; its catch below tries again.
        if (!wasListening) return;
        this.listener = undefined;
        this.deps.logger?.warn(
          { err: err.message },
          'webhook worker lost its LISTEN connection; reconnecting',
        );
        this.listenFailures = 1;
        if (this.running) setTimeout(() => void this.listen(), UNAVAILABLE_RETRY_MS).unref();
      });
      await connection.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (!this.running) {
        drop(connection);
        return;
      }
      this.listener = connection;
      if (this.listenFailures > 0) this.deps.logger?.info('webhook worker listens again');
      this.listenFailures = 0;
      this.onWake(); // anything queued while not listening
    } catch (err) {
      if (client) drop(client);
      if (this.listenFailures++ === 0) {
        this.deps.logger?.warn(
          { err: (err as Error).message },
          'webhook worker could not LISTEN; retrying every second',
        );
      }
      if (this.running) setTimeout(() => void this.listen(), UNAVAILABLE_RETRY_MS).unref();
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let sleepMs = this.idleCheckMs;
      try {
        this.woken = false;
        const { claimed, wanted, capped, nextDueAt: nextAfterCapped } = await this.claim();
        // Every free slot taken: there may be more to claim. Fewer: all that can go now has gone.
        if (claimed.length > 0 && claimed.length === wanted) continue;
        if (this.inFlight.size === 0) await this.pruneLogs(0);
        if (this.inFlight.size < this.globalLimit) {
          const now = this.deps.clock.now();
          // Deliveries left for a cap wait for their endpoint's or tenant's attempts to finish (which
          // wake this loop); the timer is for those that fall due later.
          const due = capped ? (nextAfterCapped ?? null) : await nextDueAt(this.deps.database.db, now);
          if (due !== null) sleepMs = Math.min(this.idleCheckMs, Math.max(25, due - now));
        }
      } catch (err) {
        // The database being away now and then is expected (warn); anything else is an error.
        const message = (err as Error).message;
        if (isDatabaseUnavailable(err))
          this.deps.logger?.warn({ err: message }, 'webhook worker could not claim deliveries');
        else this.deps.logger?.error({ err: message }, 'webhook worker could not claim deliveries');
        sleepMs = UNAVAILABLE_RETRY_MS;
      }
      if (this.woken || !this.running) continue;
      this.sleepingUntil = this.deps.clock.now() + sleepMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          // A timer, not an event: deliveries may have been queued where no signal reaches (another
          // process on a SQLite file).
          this.forgetQueuedEndpoints();
          resolve();
        }, sleepMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
      this.sleepingUntil = undefined;
    }
  }

  /**
   * A delivery falls due at `at` (an attempt to retry): a loop asleep past then wakes now and sleeps
   * again until the earliest due time. Finished attempts wake the loop only once a batch of slots is
   * free, so without this a retry could wait for the idle check.
   */
  private dueAt(at: number): void {
    if (this.sleepingUntil !== undefined && at < this.sleepingUntil) this.wake();
  }

  /**
   * Claims up to the free slots, within the endpoint and tenant caps, and starts sending; finished
   * sends wake the loop once a batch of slots is free again.
   */
  private async claim(): Promise<{
    claimed: ClaimedDelivery[];
    wanted: number;
    capped: boolean;
    nextDueAt?: number | null | undefined;
  }> {
    const wanted = this.globalLimit - this.inFlight.size;
    if (wanted <= 0) return { claimed: [], wanted, capped: false };
    this.freedSinceClaim = 0;
    const known = this.queuedEndpoints;
    const version = this.queuedEndpointsVersion;
    const now = this.deps.clock.now();
    const leaseMs = this.deps.config.webhookTimeoutMs + LEASE_MARGIN_MS;
    const result = await claimDueDeliveries(this.deps.database.db, {
      now,
      leaseMs,
      owner: this.id,
      limit: wanted,
      perEndpointLimit: this.perEndpointLimit,
      perTenantLimit: this.perTenantLimit,
      inFlightByEndpoint: this.inFlightByEndpoint,
      inFlightByTenant: this.inFlightByTenant,
      inFlightIds: [...this.inFlight.keys()],
      queuedEndpoints: known,
    });
    // Kept unless something may have queued deliveries since the claim began.
    if (result.queuedEndpoints && version === this.queuedEndpointsVersion) {
      this.queuedEndpoints = result.queuedEndpoints;
    }
    const { deliveries: claimed, capped, nextDueAt } = result;
    for (const delivery of claimed) {
      countIn(this.inFlightByEndpoint, delivery.endpointId, 1);
      countIn(this.inFlightByTenant, delivery.tenantId, 1);
      const work = this.attempt(delivery, now + leaseMs).finally(() => {
        this.inFlight.delete(delivery.id);
        countIn(this.inFlightByEndpoint, delivery.endpointId, -1);
        countIn(this.inFlightByTenant, delivery.tenantId, -1);
        this.freedSinceClaim += 1;
        if (this.freedSinceClaim >= this.claimBatch) this.wake();
      });
      this.inFlight.set(delivery.id, work);
    }
    return { claimed, wanted, capped, nextDueAt };
  }

  /**
   * Records an attempt. On SQLite it is recorded together with the others that finish meanwhile:
   * the attempts that end in one turn, or while a batch is being written, share one transaction.
   */
  private record(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<RecordedAttempt> {
    // PostgreSQL records attempts side by side on the pool's connections; batches would queue them
    // behind one connection's round trips. SQLite has one connection: there a batch saves commits.
    if (this.deps.database.dialect === 'postgres') {
      return recordAttempt(this.deps.database.db, delivery, outcome, {
        now: this.deps.clock.now(),
        retryScheduleMs: this.deps.config.webhookRetryScheduleMs,
      });
    }
    return new Promise((resolve, reject) => {
      this.toRecord.push({ delivery, outcome, resolve, reject });
      if (!this.recording && this.toRecord.length === 1) setImmediate(() => void this.writeRecords());
    });
  }

  private async writeRecords(): Promise<void> {
    if (this.recording) return;
    this.recording = true;
    try {
      while (this.toRecord.length > 0) {
        const batch = this.toRecord;
        this.toRecord = [];
        let results: PromiseSettledResult<RecordedAttempt>[];
        try {
          results = await recordAttempts(this.deps.database.db, batch, {
            now: this.deps.clock.now(),
            retryScheduleMs: this.deps.config.webhookRetryScheduleMs,
          });
        } catch (err) {
          // Each attempt reports it (and its lease runs out, so it is sent again).
          for (const pending of batch) pending.reject(err);
          continue;
        }
        results.forEach((result, i) => {
          if (result.status === 'fulfilled') batch[i]!.resolve(result.value);
          else batch[i]!.reject(result.reason);
        });
      }
    } finally {
      this.recording = false;
    }
  }

  /** Prunes the log of every endpoint with at least `atLeast` (and one) finished since its last prune. */
  private async pruneLogs(atLeast: number): Promise<void> {
    // A copy: a failed prune is put back for the next time, not retried in this loop.
    for (const [key, n] of [...this.unpruned]) {
      if (n < Math.max(1, atLeast)) continue;
      this.unpruned.delete(key);
      const [tenantId, endpointId] = key.split(':').map(Number) as [number, number];
      try {
        await pruneDeliveryLog(this.deps.database.db, tenantId, endpointId);
      } catch (err) {
        this.unpruned.set(key, (this.unpruned.get(key) ?? 0) + n);
        this.deps.logger?.warn(
          { err: (err as Error).message },
          'webhook log pruning failed; it is retried next time',
        );
      }
    }
  }

  /**
   * Records an attempt; while the database is unavailable, again every second as long as the
   * worker runs and the lease holds (after it, another claim sends the delivery again anyway).
   */
  private async recordUntilLeaseEnds(
    delivery: ClaimedDelivery,
    outcome: AttemptOutcome,
    leaseUntil: number,
  ): Promise<RecordedAttempt> {
    const tries = Math.ceil((leaseUntil - this.deps.clock.now()) / UNAVAILABLE_RETRY_MS);
    for (let n = 1; ; n++) {
      try {
        return await this.record(delivery, outcome);
      } catch (err) {
        const retry =
          isDatabaseUnavailable(err) &&
          this.running &&
          n < tries &&
          this.deps.clock.now() + UNAVAILABLE_RETRY_MS < leaseUntil;
        if (!retry) throw err;
        if (n === 1) {
          this.deps.logger?.warn(
            { err: (err as Error).message, delivery: delivery.publicId },
            'webhook attempt not recorded yet: the database is unavailable; retrying',
          );
        }
        await new Promise((resolve) => setTimeout(resolve, UNAVAILABLE_RETRY_MS));
      }
    }
  }

  private async attempt(delivery: ClaimedDelivery, leaseUntil: number): Promise<void> {
    const { clock, secretKey, logger } = this.deps;
    try {
      const startedAt = clock.now();
      let headers: Record<string, string> = baseRequestHeaders(delivery.publicId, delivery.eventType);
      let result: SendResult;
      try {
        const secret = decryptSecret(secretKey, delivery.secretEncrypted, delivery.endpointPublicId);
        const message = { id: delivery.publicId, eventType: delivery.eventType, body: delivery.body };
        headers = { ...headers, ...signPayload(secret, message, Math.floor(startedAt / 1000)) };
        result = await this.sender.send(delivery.url, headers, delivery.body);
      } catch {
        // Only a FURROW_SECRET_KEY other than the one that encrypted the secret gets here.
        result = {
          ok: false,
          statusCode: null,
          error: 'the endpoint secret cannot be decrypted with this FURROW_SECRET_KEY; not sent',
          responseExcerpt: null,
          durationMs: 0,
        };
      }
      const recorded = await this.recordUntilLeaseEnds(
        delivery,
        { ...result, startedAt, requestHeaders: headers },
        leaseUntil,
      );
      if (!recorded.recorded) {
        logger?.warn(
          { delivery: delivery.publicId },
          'webhook delivery lease expired before the attempt was recorded',
        );
        return;
      }
      if (recorded.endpointPaused) {
        logger?.warn(
          { endpoint: delivery.endpointPublicId },
          'webhook endpoint paused after repeated failures',
        );
      }
      if (recorded.status === 'retrying' && recorded.nextAttemptAt) this.dueAt(recorded.nextAttemptAt);
      if (recorded.status === 'succeeded' || recorded.status === 'failed') {
        const key = `${delivery.tenantId}:${delivery.endpointId}`;
        this.unpruned.set(key, (this.unpruned.get(key) ?? 0) + 1);
        await this.pruneLogs(PRUNE_EVERY);
      }
    } catch (err) {
      // The lease runs out and another claim retries the delivery: nothing is lost.
      logger?.error(
        { err: (err as Error).message, delivery: delivery.publicId },
        'webhook attempt not recorded',
      );
    }
  }
}

function countIn(counts: Map<number, number>, key: number, change: number): void {
  const n = (counts.get(key) ?? 0) + change;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

export function createDeliveryWorker(
  deps: DeliveryWorkerDeps,
  options?: DeliveryWorkerOptions,
): DeliveryWorker {
  return new DeliveryWorker(deps, options);
}
