// The delivery log: an endpoint keeps its newest LOG_SIZE finished deliveries (spec 8). The worker
// prunes the logs of several endpoints in one transaction, once enough of their deliveries have
// finished; their hourly roll-ups (delivery-hours.ts) lose the hours older than HOURS_KEPT_MS at the
// same time.
import type { FastifyBaseLogger } from 'fastify';
import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database, Db } from '../../platform/db/types.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { HOURS_KEPT_MS, pruneDeliveryHours } from './delivery-hours.js';

/** Finished deliveries kept per endpoint for the log (spec 8). */
export const LOG_SIZE = 50;

/**
 * Written into the SQL rather than bound as parameters: the partial index of finished deliveries
 * serves the query only when its condition visibly implies the index's (SQLite never looks inside
 * a parameter).
 */
const FINISHED = sql<SqlBool>`webhook_deliveries.status in ('succeeded', 'failed')`;

/**
 * Keeps the newest LOG_SIZE finished deliveries of an endpoint; queued ones are never pruned. The
 * newest one kept is found once, and every finished delivery older than it (by finished_at, then
 * id) goes, in one range of the finished deliveries' index. (Written as `id in (the ones past
 * LOG_SIZE)`, PostgreSQL's planner, which counted no finished deliveries in a backlog, ran that
 * subquery once per finished delivery of the endpoint: 7.7 ms to prune 24 rows, bench/README.md.)
 */
export async function pruneDeliveryLog(db: Db, tenantId: number, endpointId: number): Promise<number> {
  const oldestKept = db
    .selectFrom('webhook_deliveries')
    .select(['finished_at', 'id'])
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where(FINISHED)
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(LOG_SIZE - 1);
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where(FINISHED)
    .where(sql<SqlBool>`(webhook_deliveries.finished_at, webhook_deliveries.id) < (${oldestKept})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * An endpoint's log becomes due for pruning once this many of its deliveries have finished in this
 * process since its last prune. Whenever the worker runs out of due work, every endpoint with any
 * finished is pruned.
 */
export const PRUNE_EVERY = 25;
/**
 * The endpoints due are pruned together, in one transaction (one commit, one WAL write on SQLite),
 * once their finished deliveries add up to this many: with ten busy endpoints, one transaction per
 * about 200 deliveries instead of one statement per 25. While busy, an endpoint keeps up to
 * PRUNE_BATCH - 1 finished deliveries beyond its LOG_SIZE per worker process (an endpoint delivering
 * alone), and the counts are in memory: after a restart, those rows stay until the endpoint delivers
 * again. The log API answers the newest LOG_SIZE whatever is kept.
 */
export const PRUNE_BATCH = 200;

/** A worker's count of finished deliveries per endpoint since each endpoint's log was last pruned. */
export class LogPruner {
  /** "tenantId:endpointId" → deliveries finished since the last prune. */
  private readonly unpruned = new Map<string, number>();
  /** The sum of the counts in `unpruned` that have reached PRUNE_EVERY. */
  private due = 0;
  /** The prunes asked for, one after the other. */
  private queue: Promise<void> = Promise.resolve();
  /** A prune asked for by pruneWhenDue has not begun yet. */
  private dueAsked = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly logger?: FastifyBaseLogger | undefined,
  ) {}

  /** A delivery of this endpoint finished (succeeded or failed). */
  finished(tenantId: number, endpointId: number): void {
    this.count(`${tenantId}:${endpointId}`, 1);
  }

  private count(key: string, added: number): void {
    const before = this.unpruned.get(key) ?? 0;
    const after = before + added;
    this.unpruned.set(key, after);
    if (after >= PRUNE_EVERY) this.due += before >= PRUNE_EVERY ? added : after;
  }

  /** Prunes the endpoints with PRUNE_EVERY finished once they add up to PRUNE_BATCH (see above). */
  async pruneWhenDue(): Promise<void> {
    if (this.due < PRUNE_BATCH || this.dueAsked) return;
    this.dueAsked = true;
    await this.prune(PRUNE_EVERY);
  }

  /**
   * Prunes the log and the old hours of every endpoint with at least `atLeast` (and one) finished
   * since its last prune, in one transaction, in key order (two workers pruning the same endpoints
   * lock them in the same order). When that fails with the database there, each endpoint is pruned
   * in a transaction of its own, so one that cannot be pruned holds back no other; those that fail
   * are tried again next time. An endpoint gains hours only by delivering, so each one's are pruned
   * too.
   */
  prune(atLeast: number): Promise<void> {
    // pruneNow reports its own failures; nothing may break the chain for the prunes after it.
    this.queue = this.queue.then(() => this.pruneNow(atLeast)).catch(() => {});
    return this.queue;
  }

  private async pruneNow(atLeast: number): Promise<void> {
    this.dueAsked = false;
    const taken = [...this.unpruned].filter(([, n]) => n >= Math.max(1, atLeast));
    if (taken.length === 0) return;
    // Taken now: deliveries that finish meanwhile count toward the next prune.
    for (const [key, n] of taken) {
      this.unpruned.delete(key);
      if (n >= PRUNE_EVERY) this.due -= n;
    }
    const endpoints = taken
      .map(([key]) => key.split(':').map(Number) as [number, number])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const hoursBefore = this.clock.now() - HOURS_KEPT_MS;
    const pruneIn = async (db: Db, endpointsPruned: readonly (readonly [number, number])[]) => {
      for (const [tenantId, endpointId] of endpointsPruned) {
        await pruneDeliveryLog(db, tenantId, endpointId);
        await pruneDeliveryHours(db, tenantId, endpointId, hoursBefore);
      }
    };
    try {
      await this.db.transaction().execute((trx) => pruneIn(trx, endpoints));
      return;
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        this.logger?.warn({ err: messageOf(err) }, 'webhook log pruning failed; it is retried next time');
        // Put back for the next time, not retried now.
        for (const [key, n] of taken) this.count(key, n);
        return;
      }
      this.logger?.warn({ err: messageOf(err) }, 'webhook log pruning failed; pruning each endpoint alone');
    }
    // One endpoint's failure (a lock wait that timed out, say) keeps only that endpoint's log for the
    // next time: each is pruned in a transaction of its own.
    const counts = new Map(taken);
    for (const endpoint of endpoints) {
      const key = `${endpoint[0]}:${endpoint[1]}`;
      try {
        await this.db.transaction().execute((trx) => pruneIn(trx, [endpoint]));
      } catch (err) {
        this.logger?.warn(
          { err: messageOf(err), endpointId: endpoint[1] },
          'webhook log pruning failed for an endpoint; it is retried next time',
        );
        this.count(key, counts.get(key) ?? 0);
      }
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
