// Expired idempotency keys are deleted by a background service of the worker role every hour. A key
// past its 24 hours is free again at once (a claim takes it over); pruning only keeps the table small.
import type { Kysely } from 'kysely';
import type { BackgroundService } from '../background.js';
import type { Clock } from '../clock.js';
import { pruneIdempotencyKeys } from './idempotency-keys.js';
import type { Database } from './types.js';
import { isDatabaseUnavailable } from './unavailable.js';

export const IDEMPOTENCY_PRUNE_INTERVAL_MS = 3_600_000;
const FIRST_RUN_DELAY_MS = 60_000;

export interface IdempotencyPruningDeps {
  db: Kysely<Database>;
  clock: Clock;
  intervalMs?: number;
  logger: {
    error(obj: unknown, msg: string): void;
    warn(obj: unknown, msg: string): void;
    info(obj: unknown, msg: string): void;
  };
}

export function createIdempotencyPruning(deps: IdempotencyPruningDeps): BackgroundService {
  const intervalMs = deps.intervalMs ?? IDEMPOTENCY_PRUNE_INTERVAL_MS;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let stopped = true;
  let failing = false;

  const runOnce = async () => {
    try {
      const pruned = await pruneIdempotencyKeys(deps.db, deps.clock.now());
      failing = false;
      if (pruned > 0) deps.logger.info({ pruned }, 'pruned expired idempotency keys');
    } catch (err) {
      // The database being away is logged once per outage, at warn; any other failure every time.
      if (!isDatabaseUnavailable(err)) {
        deps.logger.error({ err }, 'idempotency key pruning failed; trying again at the next interval');
      } else if (!failing) {
        deps.logger.warn(
          { err: (err as Error).message },
          'idempotency key pruning failed: the database is unavailable; trying again at every interval',
        );
      }
      failing = true;
    }
  };
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = runOnce().finally(() => {
        inFlight = undefined;
        schedule(intervalMs);
      });
    }, delayMs);
    timer.unref();
  };

  return {
    name: 'idempotency-key-pruning',
    async start() {
      stopped = false;
      schedule(Math.min(FIRST_RUN_DELAY_MS, intervalMs));
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}
