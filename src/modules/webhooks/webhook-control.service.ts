// The owner's control of an endpoint beyond its settings: pausing it by hand, and sending again
// every delivery that failed during a receiver's outage.
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import { notifyDeliveryWorkers } from './delivery-wake-up.js';
import { pauseEndpoint } from './endpoint-pause.js';
import { countFailedBetween, findEndpointForUpdate, requeueFailedBetween } from './webhook.repository.js';
import { type Endpoint, getWebhookEndpoint, type WebhookDeps } from './webhook.service.js';
import { timestampOf } from './webhook-inputs.js';

/** The owner pauses an endpoint: events are held until `enable`. Pausing a paused endpoint changes nothing. */
export async function pauseWebhookEndpoint(deps: WebhookDeps, scope: Scope, id: string): Promise<Endpoint> {
  return inTransaction(scope, async (tx) => {
    const row = await findEndpointForUpdate(tx, id);
    if (!row) throw notFound();
    const now = deps.clock.now();
    await pauseEndpoint(tx, row.id, { kind: 'owner' }, now);
    return getWebhookEndpoint(tx, id, now);
  });
}

/** The most deliveries one recover sends again; a wider window is refused. */
export const RECOVER_LIMIT = 10_000;

/**
 * Every delivery of the endpoint that ended `failed` with finished_at in [since, until] (until: now)
 * is sent again, as a redelivery is: same id and body, fresh timestamp and signature. One transaction.
 */
export async function recoverFailedDeliveries(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  input: { since: string; until?: string | undefined },
): Promise<{ count: number }> {
  const now = deps.clock.now();
  const problems: FieldError[] = [];
  const since = timestampOf('since', input.since, problems);
  const until = input.until === undefined ? now : timestampOf('until', input.until, problems);
  if (since !== undefined && until !== undefined && since >= until) {
    problems.push({ field: 'since', message: 'webhook.since_not_before_until' });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return inTransaction(scope, async (tx) => {
    const endpoint = await findEndpointForUpdate(tx, id);
    if (!endpoint) throw notFound();
    const found = await countFailedBetween(tx, endpoint.id, since!, until!);
    if (found > RECOVER_LIMIT) {
      throw validationFailed([
        {
          field: 'since',
          message: 'webhook.recover_too_many',
          params: { count: found, limit: RECOVER_LIMIT },
        },
      ]);
    }
    const count = found === 0 ? 0 : await requeueFailedBetween(tx, endpoint.id, since!, until!, now);
    if (count > 0) await notifyDeliveryWorkers(tx.db);
    return { count };
  });
}
