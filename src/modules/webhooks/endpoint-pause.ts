// An endpoint's failure streak and its automatic pauses: a fully failed delivery extends the streak,
// PAUSE_AFTER_FAILURES in a row pause the endpoint and hold its queued deliveries; a success ends it.
// A 410 Gone answer pauses it at once (delivery-record.ts).
import type { UpdateQueryBuilder } from 'kysely';
import type { Database, Db } from '../../platform/db/types.js';
import { writeEndpointPausedMail } from '../notifications/mail-outbox.js';
import { pausesAfter } from './delivery-policy.js';

/** Answers whether the endpoint was paused here. */
export async function updateFailureStreak(
  trx: Db,
  delivery: { tenantId: number; endpointId: number },
  succeeded: boolean,
  now: number,
): Promise<boolean> {
  const endpointWhere = <O>(q: UpdateQueryBuilder<Database, 'webhook_endpoints', 'webhook_endpoints', O>) =>
    q.where('tenant_id', '=', delivery.tenantId).where('id', '=', delivery.endpointId);
  if (succeeded) {
    // Only a streak to end takes the endpoint's row lock: concurrent successes do not queue on it.
    // A paused endpoint keeps its streak until it is enabled (a success then does not hide why).
    await endpointWhere(trx.updateTable('webhook_endpoints').set({ consecutive_failures: 0 }))
      .where('consecutive_failures', '<>', 0)
      .where('status', '=', 'active')
      .execute();
    return false;
  }
  const row = await endpointWhere(
    trx
      .updateTable('webhook_endpoints')
      .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) })),
  )
    .returning(['consecutive_failures', 'status'])
    .executeTakeFirst();
  if (!row || !pausesAfter(row.consecutive_failures, row.status)) return false;
  await pauseEndpoint(trx, delivery, { kind: 'failures', count: row.consecutive_failures }, now);
  return true;
}

/** Why an endpoint was paused automatically: a streak of failed deliveries, or a 410 Gone answer. */
export type AutomaticPause = { kind: 'failures'; count: number } | { kind: 'gone' };

/** The paused_reason an automatic pause answers. */
export function pausedReasonOf(reason: AutomaticPause): string {
  return reason.kind === 'gone' ? 'gone' : `${reason.count} consecutive deliveries failed every attempt`;
}

/**
 * Pauses an active endpoint automatically: its queued deliveries are held and its owners mailed, in
 * the caller's transaction (the pause and its mail commit together). The caller has read the endpoint
 * as active under its row lock.
 */
export async function pauseEndpoint(
  trx: Db,
  delivery: { tenantId: number; endpointId: number },
  reason: AutomaticPause,
  now: number,
): Promise<void> {
  const endpoint = await trx
    .updateTable('webhook_endpoints')
    .set({ status: 'paused', paused_reason: pausedReasonOf(reason), updated_at: now })
    .where('tenant_id', '=', delivery.tenantId)
    .where('id', '=', delivery.endpointId)
    .returning(['url', 'description'])
    .executeTakeFirstOrThrow();
  await holdQueuedDeliveries(trx, delivery.tenantId, delivery.endpointId);
  await writeEndpointPausedMail(
    { db: trx, tenantId: delivery.tenantId },
    { url: endpoint.url, description: endpoint.description, reason },
    now,
  );
}

/** Pausing: queued deliveries of the endpoint wait as `held` (tests and redeliveries excepted). */
export async function holdQueuedDeliveries(db: Db, tenantId: number, endpointId: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'held', next_attempt_at: null })
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where('status', 'in', ['pending', 'retrying'])
    .where('counts_toward_pause', '=', 1)
    .execute();
}
