// How a worker records its attempts: those that end together in one batch (one transaction on
// SQLite, run directly on the connection when all succeeded; one statement on PostgreSQL, failed
// ones there each in a transaction of its own, a few side by side); while the database is away,
// again until the lease ends.
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { SideBySide } from '../../platform/side-by-side.js';
import type { ClaimedDelivery } from './delivery-claim.js';
import {
  type AttemptOutcome,
  type RecordedAttempt,
  recordAttempt,
  recordAttempts,
} from './delivery-record.js';

/**
 * Failed attempts recorded side by side on PostgreSQL, at most: each is a transaction of several
 * round trips on a connection of the pool, which also serves the claims, the batches of successes
 * and, in a process with role all, the API. The others wait their turn.
 */
export const FAILURES_SIDE_BY_SIDE = 8;

export interface AttemptRecorderDeps {
  database: DatabaseHandle;
  clock: Clock;
  retryScheduleMs: readonly number[];
  /** While the database is unavailable: the pause before recording an attempt again. */
  retryMs: number;
  /** Whether the worker still runs: a stopped worker does not try again. */
  isRunning: () => boolean;
  logger?: FastifyBaseLogger | undefined;
}

interface PendingRecord {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
  resolve(recorded: RecordedAttempt): void;
  reject(err: unknown): void;
}

export class AttemptRecorder {
  /** Attempts waiting to be recorded by the next batch, and whether a batch is being written. */
  private toRecord: PendingRecord[] = [];
  private recording = false;
  /** Failed attempts recorded on PostgreSQL: FAILURES_SIDE_BY_SIDE at once. */
  private readonly failures = new SideBySide(FAILURES_SIDE_BY_SIDE);

  constructor(private readonly deps: AttemptRecorderDeps) {}

  /**
   * Records an attempt; while the database is unavailable, again every second as long as the
   * worker runs and the lease holds (after it, another claim sends the delivery again anyway).
   */
  async recordUntilLeaseEnds(
    delivery: ClaimedDelivery,
    outcome: AttemptOutcome,
    leaseUntil: number,
  ): Promise<RecordedAttempt> {
    const { clock, retryMs } = this.deps;
    const tries = Math.ceil((leaseUntil - clock.now()) / retryMs);
    for (let n = 1; ; n++) {
      try {
        return await this.record(delivery, outcome);
      } catch (err) {
        const retry =
          isDatabaseUnavailable(err) &&
          this.deps.isRunning() &&
          n < tries &&
          clock.now() + retryMs < leaseUntil;
        if (!retry) throw err;
        if (n === 1) {
          this.deps.logger?.warn(
            { err: (err as Error).message, delivery: delivery.publicId },
            'webhook attempt not recorded yet: the database is unavailable; retrying',
          );
        }
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    }
  }

  /**
   * Records an attempt together with the others that finish meanwhile: the attempts that end in one
   * turn, or while a batch is being written, share one transaction on SQLite (one commit of its one
   * connection) and one statement on PostgreSQL (recordSuccesses).
   */
  private record(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<RecordedAttempt> {
    // A failed attempt on PostgreSQL takes a transaction of several round trips (it may pause the
    // endpoint): it runs side by side with a few others on the pool rather than queue behind a batch.
    if (this.deps.database.dialect === 'postgres' && !outcome.ok)
      return this.recordFailure(delivery, outcome);
    return new Promise((resolve, reject) => {
      this.toRecord.push({ delivery, outcome, resolve, reject });
      if (!this.recording && this.toRecord.length === 1) setImmediate(() => void this.writeRecords());
    });
  }

  private recordFailure(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<RecordedAttempt> {
    return this.failures.run(() =>
      recordAttempt(this.deps.database.db, delivery, outcome, {
        now: this.deps.clock.now(),
        retryScheduleMs: this.deps.retryScheduleMs,
      }),
    );
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
            retryScheduleMs: this.deps.retryScheduleMs,
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
}
