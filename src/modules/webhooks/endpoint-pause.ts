// An endpoint's failure streak and its pauses: a fully failed delivery extends the streak,
// PAUSE_AFTER_FAILURES in a row pause the endpoint and hold its queued deliveries; a success ends it.
// pauseEndpoint is the one way an endpoint pauses (failures, its owner, a 410 Gone).
import type { UpdateQueryBuilder } from 'kysely';
import { type Scope, updateScoped } from '../../platform/db/scope.js';
import type { Database, Db } from '../../platform/db/types.js';
import { writeEndpointPausedMail } from '../notifications/mail-outbox.js';
import { pausesAfter } from './delivery-policy.js';
import { emitEvent } from './outbox.js';

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
  return pauseEndpoint(
    { db: trx, tenantId: delivery.tenantId },
    delivery.endpointId,
    { kind: 'failures', count: row.consecutive_failures },
    now,
  );
}

/** Why an endpoint pauses: a failure streak, its owner's hand, or its receiver's 410 Gone. */
export type PauseReason = { kind: 'failures'; count: number } | { kind: 'owner' } | { kind: 'gone' };

/** The endpoint's paused_reason for a reason. */
export function pausedReasonText(reason: PauseReason): string {
  return reason.kind === 'failures'
    ? `${reason.count} consecutive deliveries failed every attempt`
    : reason.kind;
}

/**
 * Pauses an active endpoint in the caller's transaction: its queued deliveries are held, the tenant's
 * other endpoints that select `webhook.endpoint.paused` get that event, and owners are mailed unless
 * they paused it themselves. Answers false (and does nothing) when the endpoint is not active.
 */
export async function pauseEndpoint(
  tx: Scope,
  endpointId: number,
  reason: PauseReason,
  now: number,
): Promise<boolean> {
  const paused = await updateScoped(tx, 'webhook_endpoints')
    .set({ status: 'paused', paused_reason: pausedReasonText(reason), updated_at: now })
    .where('id', '=', endpointId)
    .where('status', '=', 'active')
    .returning(['public_id', 'url', 'description', 'paused_reason', 'consecutive_failures'])
    .executeTakeFirst();
  if (!paused) return false;
  await holdQueuedDeliveries(tx.db, tx.tenantId, endpointId);
  const fixedClock = { now: () => now };
  await emitEvent(
    { clock: fixedClock },
    tx,
    'webhook.endpoint.paused',
    {
      endpoint_id: paused.public_id,
      url: paused.url,
      description: paused.description,
      paused_reason: paused.paused_reason,
      paused_at: new Date(now).toISOString(),
      consecutive_failures: paused.consecutive_failures,
    },
    { exceptEndpointId: endpointId },
  );
  // The owners hear of a pause they did not make by e-mail, in this transaction: both commit together.
  if (reason.kind !== 'owner') {
    await writeEndpointPausedMail(tx, { url: paused.url, description: paused.description, reason }, now);
  }
  return true;
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
