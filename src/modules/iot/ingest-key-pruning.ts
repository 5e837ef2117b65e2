// The keys of network-server events already stored (iot_ingest_keys) are kept 7 days, long after
// any network server would deliver an event again; a background service of the worker role deletes
// older ones every hour.
import type { Kysely } from 'kysely';
import type { BackgroundService } from '../../platform/background.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/types.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { pruneIngestKeys } from './lorawan.repository.js';

export const INGEST_KEY_RETENTION_MS = 7 * 86_400_000;
export const INGEST_KEY_PRUNE_INTERVAL_MS = 3_600_000;
const FIRST_RUN_DELAY_MS = 60_000;

export interface IngestKeyPruningDeps {
  db: Kysely<Database>;
  clock: Clock;
  intervalMs?: number;
  logger: {
    error(obj: unknown, msg: string): void;
    warn(obj: unknown, msg: string): void;
    info(obj: unknown, msg: string): void;
  };
}

/** One run: deletes the keys older than the retention; answers how many. */
export function pruneOldIngestKeys(deps: { db: Kysely<Database>; clock: Clock }): Promise<number> {
  return pruneIngestKeys(deps.db, deps.clock.now() - INGEST_KEY_RETENTION_MS);
}

export function createIngestKeyPruning(deps: IngestKeyPruningDeps): BackgroundService {
  const intervalMs = deps.intervalMs ?? INGEST_KEY_PRUNE_INTERVAL_MS;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let stopped = true;
  let failing = false;

  const runOnce = async () => {
    try {
      const pruned = await pruneOldIngestKeys(deps);
      failing = false;
      if (pruned > 0) deps.logger.info({ pruned }, 'pruned old LoRaWAN ingest keys');
    } catch (err) {
      // The database being away is logged once per outage, at warn; any other failure every time.
      if (!isDatabaseUnavailable(err)) {
        deps.logger.error({ err }, 'ingest key pruning failed; trying again at the next interval');
      } else if (!failing) {
        deps.logger.warn(
          { err: (err as Error).message },
          'ingest key pruning failed: the database is unavailable; trying again at every interval',
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
    name: 'iot-ingest-key-pruning',
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
