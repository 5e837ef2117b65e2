// The offline sweeper: a background service of the worker role that runs
// sweepOfflineDevices every IOT_SWEEP_INTERVAL_MS. Several sweepers may run against one
// PostgreSQL database; each outage still raises exactly one event.
import type { Kysely } from 'kysely';
import type { BackgroundService } from '../../platform/background.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/types.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { sweepOfflineDevices } from './iot.service.js';

export interface SweeperDeps {
  db: Kysely<Database>;
  clock: Clock;
  intervalMs: number;
  logger: {
    error(obj: unknown, msg: string): void;
    warn(obj: unknown, msg: string): void;
    info(obj: unknown, msg: string): void;
  };
}

export function createOfflineSweeper(deps: SweeperDeps): BackgroundService {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let stopped = true;
  // Devices count as silent only once a whole timeout has passed since the sweeper could last
  // see the database: when the service itself was down (a deploy, a failover), devices that
  // could not report are given their timeout to be heard from again instead of all going offline.
  let notBefore: number | undefined;
  let recovering = false;

  const runOnce = async () => {
    try {
      if (recovering) notBefore = deps.clock.now();
      const marked = await sweepOfflineDevices(deps, { notBefore });
      recovering = false;
      if (marked > 0) deps.logger.info({ marked }, 'devices went offline');
    } catch (err) {
      // The database being away is logged once per outage, at warn; any other failure every time.
      if (!isDatabaseUnavailable(err)) {
        deps.logger.error({ err }, 'offline sweep failed; trying again at the next interval');
      } else if (!recovering) {
        deps.logger.warn(
          { err: (err as Error).message },
          'offline sweep failed: the database is unavailable; trying again at every interval',
        );
      }
      recovering = true;
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = runOnce().finally(() => {
        inFlight = undefined;
        schedule();
      });
    }, deps.intervalMs);
    timer.unref();
  };

  return {
    name: 'iot-offline-sweeper',
    async start() {
      stopped = false;
      notBefore = deps.clock.now();
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}
