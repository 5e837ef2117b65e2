// An endpoint's delivery log, read with its filters, and sending one finished delivery again.
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { conflict, notFound } from '../../platform/errors.js';
import { notifyDeliveryWorkers } from './delivery-wake-up.js';
import { attemptsOf, findDelivery, listDeliveries, requeueForRedelivery } from './webhook.repository.js';
import { requireEndpoint, type WebhookDeps } from './webhook.service.js';
import { type Delivery, toDelivery } from './webhook-delivery.presenter.js';
import { type DeliveryQuery, deliveryFilterOf } from './webhook-inputs.js';

export async function listWebhookDeliveries(
  scope: Scope,
  id: string,
  query: DeliveryQuery = {},
  limit = 50,
): Promise<Delivery[]> {
  const filter = deliveryFilterOf(query);
  const endpoint = await requireEndpoint(scope, id);
  const rows = await listDeliveries(scope, endpoint.id, limit, filter);
  const attempts = await attemptsOf(
    scope,
    rows.map((r) => r.id),
  );
  return rows.map((r) =>
    toDelivery(
      r,
      attempts.filter((a) => a.delivery_id === r.id),
    ),
  );
}

/** Sends a finished delivery once more: same id and body, a fresh timestamp and signature. */
export async function redeliver(
  deps: WebhookDeps,
  scope: Scope,
  endpointId: string,
  deliveryId: string,
): Promise<Delivery> {
  return inTransaction(scope, async (tx) => {
    const endpoint = await requireEndpoint(tx, endpointId);
    const delivery = await findDelivery(tx, endpoint.id, deliveryId);
    if (!delivery) throw notFound();
    if (!(await requeueForRedelivery(tx, delivery, deps.clock.now()))) {
      throw conflict('webhook.delivery_in_progress');
    }
    await notifyDeliveryWorkers(tx.db);
    const stored = await findDelivery(tx, endpoint.id, deliveryId);
    return toDelivery(stored!, await attemptsOf(tx, [delivery.id]));
  });
}
