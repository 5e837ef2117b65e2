// What the deliveries tell the metrics (platform/metrics.ts): each recorded attempt by the
// delivery's status after it, for a success the time since the event occurred, and the queue depth.
import { type Kysely, sql } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { DeliveryStatus } from '../../platform/db/tables/webhooks.js';
import type { Database } from '../../platform/db/types.js';
import { registerCachedGauge, webhookDeliveries, webhookDeliveryLatency } from '../../platform/metrics.js';

const OCCURRED_AT = '"occurred_at":"';

/**
 * The envelope's occurred_at (ms), read from the stored body without parsing it: the envelope's own
 * field comes before `data` (events.ts serializeEnvelope), so the first match is it.
 */
export function occurredAtOf(body: string): number | undefined {
  const start = body.indexOf(OCCURRED_AT);
  if (start < 0) return undefined;
  const from = start + OCCURRED_AT.length;
  const value = Date.parse(body.slice(from, body.indexOf('"', from)));
  return Number.isNaN(value) ? undefined : value;
}

export function countAttempt(status: DeliveryStatus, body: string, receivedAt: number): void {
  webhookDeliveries.inc({ outcome: status });
  if (status !== 'succeeded') return;
  const occurredAt = occurredAtOf(body);
  if (occurredAt !== undefined) webhookDeliveryLatency.observe(Math.max(0, receivedAt - occurredAt) / 1000);
}

/** The queue depth gauge counts at most this many due deliveries: a bounded read of one index. */
export const QUEUE_DEPTH_LIMIT = 100_000;
/** Scrapes within this long of the last read answer its value again. */
export const QUEUE_DEPTH_CACHE_MS = 5_000;

/**
 * Deliveries due now (pending, or retrying whose next attempt has come), of every tenant, at most
 * `limit`: the claim's partial index (0003's webhook_deliveries_due_idx) answers it, so the condition
 * is written out as the index's.
 */
export async function countDueDeliveries(db: Kysely<Database>, now: number, limit: number): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from (
      select 1 from webhook_deliveries
      where status in ('pending', 'retrying') and next_attempt_at <= ${now}
      limit ${limit}
    ) due`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** furrow_webhook_queue_depth, read from the database on scrape and kept QUEUE_DEPTH_CACHE_MS. */
export function registerQueueDepthGauge(deps: { db: Kysely<Database>; clock: Clock }): void {
  registerCachedGauge({
    name: 'furrow_webhook_queue_depth',
    help: `Webhook deliveries due now (pending, or retrying and due), of every tenant; counted up to ${QUEUE_DEPTH_LIMIT}, read at most every ${QUEUE_DEPTH_CACHE_MS / 1000} s`,
    cacheMs: QUEUE_DEPTH_CACHE_MS,
    now: () => Date.now(),
    read: () => countDueDeliveries(deps.db, deps.clock.now(), QUEUE_DEPTH_LIMIT),
  });
}
