// The delivery worker: claims due deliveries with a lease, sends them outside any transaction,
// records each attempt. Any number of workers share one database. It sleeps until a wake-up
// (LISTEN/NOTIFY on PostgreSQL, an in-process signal on SQLite) or the next due time.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { BackgroundService } from '../../platform/background.js';
import type { Clock } from '../../platform/clock.js';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { AttemptRecorder } from './attempt-recorder.js';
import { redactCustomHeaders } from './custom-headers.js';
import { type ClaimedDelivery, claimDueDeliveries, type QueuedEndpoint } from './delivery-claim.js';
import { LogPruner } from './delivery-log.js';
import { countAttempt } from './delivery-metrics.js';
import { nextDueAt } from './delivery-queue.js';
import { DeliveryListener, localWakeUp, type WakeUpEndpoints } from './delivery-wake-up.js';
import { baseRequestHeaders } from './events.js';
import type { Sender, SendResult } from './sender.js';
import { DecryptedSecrets, signPayload } from './signing.js';
import { createDeliverySender } from './threaded-sender.js';
import { slotSizes, WorkerSlots } from './worker-slots.js';

/** Deliveries in flight in one worker process (its slots), on either database. */
export const GLOBAL_CONCURRENCY = 64;
/** The fair shares of a process's slots (claim-shares.ts), for the benchmark that sizes its load by them. */
export { fairShares } from './claim-shares.js';
/**
 * PostgreSQL connections of a process that delivers (serve with role all or worker): its claims, the
 * batches of attempts recorded, failed attempts recorded side by side (at most FAILURES_SIDE_BY_SIDE),
 * its LISTEN, and with role all the API's requests.
 */
export const WORKER_POOL_SIZE = 18;
/**
 * A lease outlives the timeout by this much, so a live worker records before it expires (the
 * recording may wait for a pooled connection and the database). Each claim has its own lease token.
 */
export const LEASE_MARGIN_MS = 30_000;
/** Upper bound of an idle sleep: covers a missed notification or another process's expired lease. */
const IDLE_CHECK_MS = 5_000;
/**
 * While the database is unavailable: the pause before claiming, listening or recording an attempt
 * again. An attempt is recorded again until its lease runs out, so a short outage neither loses
 * the answer of a receiver nor makes the delivery go out a second time.
 */
const UNAVAILABLE_RETRY_MS = 1_000;
/** The pause before claiming again when another worker leased some of what a claim chose. */
const LOST_RETRY_MS = 10;

export interface DeliveryWorkerDeps {
  database: DatabaseHandle;
  clock: Clock;
  config: Pick<
    Config,
    'webhookRetryScheduleMs' | 'webhookTimeoutMs' | 'webhookAllowPrivateHosts' | 'webhookCaFile'
  > &
    Partial<Pick<Config, 'webhookSendThread'>>;
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

export class DeliveryWorker implements BackgroundService {
  readonly name = 'webhook delivery worker';
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly sender: Sender;
  private readonly slots: WorkerSlots;
  private readonly perEndpointLimit: number;
  private readonly perTenantLimit: number;
  private readonly idleCheckMs: number;
  private readonly recorder: AttemptRecorder;
  private readonly logs: LogPruner;
  private readonly listener: DeliveryListener;
  /**
   * The endpoints with queued deliveries as the last claim that needed them found them; looked up
   * again after anything may have queued deliveries elsewhere (a wake-up by an event, a timer).
   */
  private queuedEndpoints: QueuedEndpoint[] | undefined;
  /** Counts the times the endpoints with queued deliveries may have changed. */
  private queuedEndpointsVersion = 0;
  /**
   * The last claim took fewer than it could and left nothing for a cap: the queue is shallow, and
   * the next claim is tried in one statement first (PostgreSQL; claimDueDeliveries).
   */
  private queueShallow = false;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private readonly secrets: DecryptedSecrets;
  /** When the loop's current sleep ends (clock time), while it sleeps. */
  private sleepingUntil: number | undefined;
  /**
   * New deliveries may have been queued (by this process or another): a wake-up by an event. When it
   * names their endpoints and each has its full share of the slots in flight here, a claim would
   * take none of them: the loop is left asleep until one of those endpoints' attempts ends (or
   * anything else wakes it). Without this, a worker behind on a busy endpoint ran one empty claim
   * per event, and spent on them the time it lacked.
   */
  private readonly onWake = (endpoints?: WakeUpEndpoints) => {
    this.forgetQueuedEndpoints();
    if (endpoints && this.slots.allFull(endpoints, this.perEndpointLimit)) {
      this.slots.awaitSlot(endpoints);
      return;
    }
    this.wake();
  };

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    options: DeliveryWorkerOptions = {},
  ) {
    const sizes = slotSizes({
      slots: options.globalConcurrency ?? GLOBAL_CONCURRENCY,
      perEndpoint: options.perEndpointConcurrency,
      perTenant: options.perTenantConcurrency,
    });
    this.perEndpointLimit = sizes.perEndpoint;
    this.perTenantLimit = sizes.perTenant;
    this.slots = new WorkerSlots(sizes.slots, sizes.claimBatch, () => this.wake(), sizes.endpointBatch);
    this.idleCheckMs = options.idleCheckMs ?? IDLE_CHECK_MS;
    this.secrets = new DecryptedSecrets(deps.secretKey);
    this.sender = createDeliverySender({
      timeoutMs: deps.config.webhookTimeoutMs,
      allowPrivateHosts: deps.config.webhookAllowPrivateHosts,
      caFile: deps.config.webhookCaFile,
      thread: deps.config.webhookSendThread === true,
    });
    const isRunning = () => this.running;
    this.recorder = new AttemptRecorder({
      database: deps.database,
      clock: deps.clock,
      retryScheduleMs: deps.config.webhookRetryScheduleMs,
      retryMs: UNAVAILABLE_RETRY_MS,
      isRunning,
      logger: deps.logger,
    });
    this.logs = new LogPruner(deps.database.db, deps.clock, deps.logger);
    this.listener = new DeliveryListener(deps.database.pool, {
      onWake: this.onWake,
      isRunning,
      retryMs: UNAVAILABLE_RETRY_MS,
      logger: deps.logger,
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
    await Promise.all(claimed.map((delivery) => this.slots.attemptOf(delivery.id)));
    return claimed.length;
  }

  /** runOnce until nothing more is due now. */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    await this.logs.prune(0);
    return total;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    localWakeUp.on('wake', this.onWake);
    await this.listener.listen();
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
    await this.slots.settled();
    this.listener.close();
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

  private async loop(): Promise<void> {
    while (this.running) {
      let sleepMs = this.idleCheckMs;
      try {
        this.woken = false;
        const { claimed, wanted, capped, lost, nextDueAt: nextAfterCapped, nextDue } = await this.claim();
        // Every free slot taken: there may be more to claim. Fewer: all that can go now has gone.
        if (claimed.length > 0 && claimed.length === wanted) continue;
        // Another worker leased some of what this claim chose: claim again soon, not at once (the
        // other may hold them in a long transaction).
        if (lost) sleepMs = LOST_RETRY_MS;
        else if (this.slots.unfinished === 0) await this.logs.prune(0);
        if (!lost && this.slots.busy < this.slots.size) {
          const now = this.deps.clock.now();
          // Deliveries left for a cap wait for their endpoint's or tenant's attempts to finish (which
          // wake this loop); the timer is for those that fall due later.
          // The claim's lease read the next due time when it leased fewer than it could take.
          const due = capped
            ? (nextAfterCapped ?? null)
            : nextDue !== undefined
              ? nextDue
              : await nextDueAt(this.deps.database.db, now);
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
    lost?: boolean | undefined;
    nextDueAt?: number | null | undefined;
    nextDue?: number | null | undefined;
  }> {
    const wanted = this.slots.size - this.slots.busy;
    if (wanted <= 0) return { claimed: [], wanted, capped: false };
    this.slots.claiming();
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
      endpointCaps: this.slots.unanswering,
      perTenantLimit: this.perTenantLimit,
      inFlightByEndpoint: this.slots.byEndpoint,
      inFlightByTenant: this.slots.byTenant,
      inFlightIds: this.slots.ids(),
      queuedEndpoints: known,
      atOnce: this.queueShallow,
    });
    // Kept unless something may have queued deliveries since the claim began.
    if (result.queuedEndpoints && version === this.queuedEndpointsVersion) {
      this.queuedEndpoints = result.queuedEndpoints;
    }
    const { deliveries: claimed, capped, nextDueAt, nextDue } = result;
    this.queueShallow = !capped && claimed.length < wanted && result.error === undefined;
    for (const delivery of claimed)
      this.slots.occupy(delivery, (answered) => this.attempt(delivery, now + leaseMs, answered));
    if (result.error !== undefined) throw result.error;
    return { claimed, wanted, capped, lost: result.lost, nextDueAt, nextDue };
  }

  /**
   * Signs and sends one delivery, then records the attempt (see AttemptRecorder); `answered` frees
   * its slot once the answer is in (WorkerSlots.occupy).
   */
  private async attempt(delivery: ClaimedDelivery, leaseUntil: number, answered: () => void): Promise<void> {
    const { clock, logger } = this.deps;
    try {
      const startedAt = clock.now();
      // The owner's headers first: none of them can be one of Furrow's own (custom-headers.ts).
      let headers: Record<string, string> = {
        ...delivery.customHeaders,
        ...baseRequestHeaders(delivery.publicId, delivery.eventType),
      };
      let result: SendResult;
      try {
        const secret = this.secrets.of(delivery.secretEncrypted, delivery.endpointPublicId);
        const { previousSecretEncrypted: stored, previousSecretExpiresAt: expiresAt } = delivery;
        // The rotated-out secret signs too while the rotation's overlap lasts.
        const previous =
          stored !== null && expiresAt !== null && startedAt < expiresAt
            ? this.secrets.of(stored, delivery.endpointPublicId)
            : null;
        const message = { id: delivery.publicId, eventType: delivery.eventType, body: delivery.body };
        headers = { ...headers, ...signPayload(secret, message, Math.floor(startedAt / 1000), previous) };
        result = await this.sender.send(delivery.url, headers, delivery.body);
        this.slots.answered(delivery.endpointId, result.statusCode !== null);
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
      answered();
      const recorded = await this.recorder.recordUntilLeaseEnds(
        delivery,
        { ...result, startedAt, requestHeaders: redactCustomHeaders(headers, delivery.customHeaders) },
        leaseUntil,
      );
      if (!recorded.recorded) {
        logger?.warn(
          { delivery: delivery.publicId },
          'webhook delivery lease expired before the attempt was recorded',
        );
        return;
      }
      if (recorded.status !== undefined)
        countAttempt(recorded.status, delivery.body, startedAt + result.durationMs);
      if (recorded.endpointPaused) {
        logger?.warn(
          { endpoint: delivery.endpointPublicId },
          recorded.pausedFor === 'gone'
            ? 'webhook endpoint paused: the receiver answered 410 Gone'
            : 'webhook endpoint paused after repeated failures',
        );
      }
      if (recorded.status === 'retrying' && recorded.nextAttemptAt) this.dueAt(recorded.nextAttemptAt);
      if (recorded.status === 'succeeded' || recorded.status === 'failed') {
        this.logs.finished(delivery.tenantId, delivery.endpointId);
        await this.logs.pruneWhenDue();
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

export function createDeliveryWorker(
  deps: DeliveryWorkerDeps,
  options?: DeliveryWorkerOptions,
): DeliveryWorker {
  return new DeliveryWorker(deps, options);
}
