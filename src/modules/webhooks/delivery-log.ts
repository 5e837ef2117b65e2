// The delivery log: an endpoint keeps its newest LOG_SIZE finished deliveries (spec 8). The worker
// prunes in batches, per endpoint, after enough of its deliveries have finished; its hourly roll-up
// (delivery-hours.ts) loses the hours older than HOURS_KEPT_MS at the same time.
import type { FastifyBaseLogger } from 'fastify';
import { type SqlBool, sql } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/types.js';
import { HOURS_KEPT_MS, pruneDeliveryHours } from './delivery-hours.js';

/** Finished deliveries kept per endpoint for the log (spec 8). */
export const LOG_SIZE = 50;

/**
 * Written into the SQL rather than bound as parameters: the partial index of finished deliveries
 * serves the query only when its condition visibly implies the index's (SQLite never looks inside
 * a parameter).
 */
const FINISHED = sql<SqlBool>`webhook_deliveries.status in ('succeeded', 'failed')`;

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

/** A worker's count of finished deliveries per endpoint since each endpoint's log was last pruned. */
export class LogPruner {
  /** "tenantId:endpointId" → deliveries finished since the last prune. */
  private readonly unpruned = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger?: FastifyBaseLogger | undefined,
  ) {}

  /** A delivery of this endpoint finished (succeeded or failed). */
  finished(tenantId: number, endpointId: number): void {
    const key = `${tenantId}:${endpointId}`;
    this.unpruned.set(key, (this.unpruned.get(key) ?? 0) + 1);
  }

  /**
   * Prunes the log and the old hours of every endpoint with at least `atLeast` (and one) finished
   * since its last prune. An endpoint gains hours only by delivering, so each one's are pruned too.
   */
  async prune(atLeast: number): Promise<void> {
    // A copy: a failed prune is put back for the next time, not retried in this loop.
    for (const [key, n] of [...this.unpruned]) {
      if (n < Math.max(1, atLeast)) continue;
      this.unpruned.delete(key);
      const [tenantId, endpointId] = key.split(':').map(Number) as [number, number];
      try {
        await pruneDeliveryLog(this.db, tenantId, endpointId);
        await pruneDeliveryHours(this.db, tenantId, endpointId, this.clock.now() - HOURS_KEPT_MS);
      } catch (err) {
        this.unpruned.set(key, (this.unpruned.get(key) ?? 0) + n);
        this.logger?.warn(
          { err: (err as Error).message },
          'webhook log pruning failed; it is retried next time',
        );
      }
    }
  }
}
