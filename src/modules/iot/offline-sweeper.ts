// The offline sweeper: a background service of the worker role that runs
// sweepOfflineDevices every IOT_SWEEP_INTERVAL_MS. Several sweepers may run against one
// PostgreSQL database; each outage still raises exactly one event.
import type { Kysely } from 'kysely';
import type { BackgroundService } from '../../platform/background.js';
import type { Clock } from '../../platform/clock.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import type { Database } from '../../platform/db/types.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { emitEvent, type OutboxDeps } from '../webhooks/outbox.js';
import { findOverdueDevices, markDeviceOffline } from './device.repository.js';
import { deviceAnswer } from './device.service.js';

/**
 * Marks every online device whose last heartbeat is older than its timeout as offline, raising
 * one `iot.device.offline` per outage. Safe with any number of sweepers: the conditional update
 * lets exactly one of them take each outage.
 */
export async function sweepOfflineDevices(
  deps: OutboxDeps & { db: Kysely<Database> },
  options: { batchSize?: number; notBefore?: number | undefined } = {},
): Promise<number> {
  const now = deps.clock.now();
  const batchSize = options.batchSize ?? 500;
  let marked = 0;
  for (;;) {
    const overdue = await findOverdueDevices(deps.db, now, batchSize, options.notBefore);
    for (const candidate of overdue) {
      const scope: Scope = { db: deps.db, tenantId: candidate.tenant_id };
      const raised = await inTransaction(scope, async (tx) => {
        if (!(await markDeviceOffline(tx, candidate.id, candidate.last_heartbeat_at, now))) return false;
        const device = await deviceAnswer(tx, candidate.id);
        await emitEvent(deps, tx, 'iot.device.offline', {
          device_id: device.id,
          device_code: device.code,
          device_name: device.name,
          zone_id: device.zone_id,
          parcel_ids: device.parcel_ids,
          last_heartbeat: device.last_heartbeat,
        });
        return true;
      });
      if (raised) marked += 1;
    }
    if (overdue.length < batchSize) return marked;
  }
}

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
