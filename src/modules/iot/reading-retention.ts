// Raw readings are kept IOT_RAW_RETENTION_DAYS: a background service of the worker role deletes
// older ones, with their 1-minute roll-ups, every hour. The hourly and daily roll-ups stay.
import type { Kysely } from 'kysely';
import type { BackgroundService } from '../../platform/background.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/types.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import {
  bucketStart,
  deleteMinuteBuckets,
  deleteRawReadings,
  oldestMinuteBuckets,
} from './reading-rollup.repository.js';

const DAY_MS = 86_400_000;

/** How often the retention job runs, and how long after start it first does. */
export const RETENTION_INTERVAL_MS = 3_600_000;
const FIRST_RUN_DELAY_MS = 60_000;

export interface RetentionOptions {
  /** 0 keeps everything. */
  retentionDays: number;
  /** 1-minute buckets looked at per step. */
  batchSize?: number;
  /** Raw readings deleted per statement. */
  deleteChunk?: number;
}

/**
 * Deletes raw readings taken before the cutoff (now less the retention, floored to the minute) and
 * their 1-minute buckets, oldest first, across tenants. Every 1-minute bucket stands for the raw
 * readings in it (both are written in one transaction), so the oldest buckets say which devices
 * have readings to delete; a device's raw readings go before its buckets, so a run that stops
 * half-way leaves nothing the next one cannot find. Each statement deletes at most a chunk.
 */
export async function pruneRawReadings(
  deps: { db: Kysely<Database>; clock: Clock },
  options: RetentionOptions,
): Promise<{ readings: number; buckets: number }> {
  const pruned = { readings: 0, buckets: 0 };
  if (options.retentionDays === 0) return pruned;
  const batchSize = options.batchSize ?? 500;
  const chunk = options.deleteChunk ?? 1000;
  const cutoff = bucketStart(deps.clock.now() - options.retentionDays * DAY_MS, '1m');
  for (;;) {
    const oldest = await oldestMinuteBuckets(deps.db, cutoff, batchSize);
    // Per device, up to the end of its newest bucket of this step (never past the cutoff).
    const devices = new Map<string, { tenantId: number; deviceId: number; before: number }>();
    for (const b of oldest) {
      const key = `${b.tenant_id}:${b.device_id}`;
      const before = b.bucket_start + 60_000;
      const seen = devices.get(key);
      if (!seen || seen.before < before)
        devices.set(key, { tenantId: b.tenant_id, deviceId: b.device_id, before });
    }
    for (const { tenantId, deviceId, before } of devices.values()) {
      const scope = { db: deps.db, tenantId };
      for (;;) {
        const deleted = await deleteRawReadings(scope, deviceId, before, chunk);
        pruned.readings += deleted;
        if (deleted < chunk) break;
      }
      pruned.buckets += await deleteMinuteBuckets(scope, deviceId, before);
    }
    if (oldest.length < batchSize) return pruned;
  }
}

export interface RetentionDeps {
  db: Kysely<Database>;
  clock: Clock;
  retentionDays: number;
  intervalMs?: number;
  logger: {
    error(obj: unknown, msg: string): void;
    warn(obj: unknown, msg: string): void;
    info(obj: unknown, msg: string): void;
  };
}

export function createReadingRetention(deps: RetentionDeps): BackgroundService {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let stopped = true;
  let failing = false;

  const runOnce = async () => {
    try {
      const pruned = await pruneRawReadings(deps, { retentionDays: deps.retentionDays });
      failing = false;
      if (pruned.readings > 0 || pruned.buckets > 0) deps.logger.info(pruned, 'pruned old raw readings');
    } catch (err) {
      // The database being away is logged once per outage, at warn; any other failure every time.
      if (!isDatabaseUnavailable(err)) {
        deps.logger.error({ err }, 'reading retention failed; trying again at the next interval');
      } else if (!failing) {
        deps.logger.warn(
          { err: (err as Error).message },
          'reading retention failed: the database is unavailable; trying again at every interval',
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
        schedule(deps.intervalMs ?? RETENTION_INTERVAL_MS);
      });
    }, delayMs);
    timer.unref();
  };

  return {
    name: 'iot-reading-retention',
    async start() {
      stopped = false;
      schedule(Math.min(FIRST_RUN_DELAY_MS, deps.intervalMs ?? RETENTION_INTERVAL_MS));
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}
