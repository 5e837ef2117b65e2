// The transactional outbox: event sources call emitEvent inside their own transaction, so the
// change and its deliveries commit together or not at all. Nothing is sent from here.
import type { Clock } from '../../platform/clock.js';
import { isPostgresDb } from '../../platform/db/database.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import type { Database } from '../../platform/db/types.js';
import { prefixedId } from '../../platform/ids.js';
import { writeEventMail } from '../notifications/mail-outbox.js';
import { notifyDeliveryWorkers, wakeUpNotice } from './delivery-wake-up.js';
import { passesFilters } from './endpoint-filters.js';
import { baseRequestHeaders, type EventType, serializeEnvelope } from './events.js';
import { type EndpointsOfTransaction, subscribedEndpoints } from './outbox.repository.js';
import { type AlongsideWrite, type DeliveryInsert, insertDeliveries } from './webhook.repository.js';

export type { EventType } from './events.js';
export { EVENT_TYPES } from './events.js';
export { EndpointsOfTransaction } from './outbox.repository.js';
export type { AlongsideWrite } from './webhook.repository.js';

export interface OutboxDeps {
  clock: Clock;
  /**
   * The endpoints as this transaction's first event read them (outbox.repository.ts), for a
   * transaction that emits many events and changes no endpoint.
   */
  endpoints?: EndpointsOfTransaction | undefined;
  /**
   * The transaction's deliveries, queued together once it has emitted every event
   * (DeliveriesOfTransaction), instead of each event's at once.
   */
  deliveries?: DeliveriesOfTransaction | undefined;
}

/** Deliveries in one statement at most: within both databases' limits on a statement's parameters. */
const DELIVERIES_PER_STATEMENT = 500;

/**
 * The deliveries of one transaction's events, queued by flush once it has emitted them all: a
 * batch of readings that raises and resolves many alerts queues them in a few inserts, not one per
 * event, wakes the workers once, and on PostgreSQL its last insert makes the caller's last write
 * (its rule states) and the NOTIFY. A statement's worth is written as soon as more are waiting, so
 * a batch holds at most that many rows in memory however many events and endpoints it has. Only
 * for a transaction that reads none of its own deliveries before flush; the rows keep the order of
 * their events.
 */
export class DeliveriesOfTransaction {
  private rows: DeliveryInsert[] = [];
  /** Endpoints with pending deliveries among all the rows added: the wake-up's. */
  private readonly pending = new Set<number>();

  /** Adds an event's rows; writes the oldest statement's worth while more than one is waiting. */
  async add(tx: Scope, rows: readonly DeliveryInsert[]): Promise<void> {
    for (const row of rows) {
      this.rows.push(row);
      if (row.status === 'pending') this.pending.add(row.endpoint_id);
    }
    // At least one row stays for flush, whose statement carries the caller's write on PostgreSQL.
    while (this.rows.length > DELIVERIES_PER_STATEMENT) {
      await insertDeliveries(tx, this.rows.splice(0, DELIVERIES_PER_STATEMENT));
    }
  }

  /** Queues the deliveries still waiting, and makes `write` (in their statement on PostgreSQL). */
  async flush<T extends keyof Database>(tx: Scope, write?: AlongsideWrite<T>): Promise<void> {
    const rows = this.rows;
    const pending = [...this.pending];
    this.rows = [];
    this.pending.clear();
    if (rows.length > 0 && isPostgresDb(tx.db)) {
      await insertDeliveries(tx, rows, pending.length > 0 ? wakeUpNotice(pending) : undefined, write);
      return;
    }
    if (rows.length > 0) await insertDeliveries(tx, rows);
    if (write) await write.execute();
    if (pending.length > 0) await notifyDeliveryWorkers(tx.db, pending);
  }
}

/**
 * Writes the event's mail (mail-outbox.ts: only some kinds, when e-mail is on and the tenant asked for
 * it), then one delivery of `type` per endpoint of the tenant that subscribes to it and whose filters
 * for the kind the data passes: `pending` for active endpoints, `held` for paused ones. Each body is
 * serialized here, once. Workers wake up when the caller's transaction commits. Answers the delivery
 * ids (msg_…). `exceptEndpointId`: an endpoint left out (the one a webhook.endpoint.paused is about).
 */
export async function emitEvent(
  deps: OutboxDeps,
  scope: Scope,
  type: EventType,
  data: Record<string, unknown>,
  options: { exceptEndpointId?: number } = {},
): Promise<string[]> {
  return inTransaction(scope, async (tx) => {
    const now = deps.clock.now();
    await writeEventMail(tx, type, data, now);
    const subscribed = deps.endpoints
      ? await deps.endpoints.subscribedTo(tx, type)
      : await subscribedEndpoints(tx, type);
    const endpoints = subscribed.filter(
      (endpoint) => endpoint.id !== options.exceptEndpointId && passesFilters(endpoint.filters, type, data),
    );
    if (endpoints.length === 0) return [];
    const rows = endpoints.map((endpoint) =>
      newDeliveryRow({
        endpointId: endpoint.id,
        type,
        workspaceId: endpoint.tenant_code,
        data,
        now,
        held: endpoint.status === 'paused',
      }),
    );
    // Queued now, unless the caller keeps its transaction's deliveries for the end.
    const deliveries = deps.deliveries ?? new DeliveriesOfTransaction();
    await deliveries.add(tx, rows);
    if (!deps.deliveries) await deliveries.flush(tx);
    return rows.map((r) => r.public_id);
  });
}

export function newDeliveryRow(input: {
  endpointId: number;
  type: string;
  workspaceId: string;
  data: unknown;
  now: number;
  held?: boolean;
  /** webhook.test: one attempt, never counted toward pausing. */
  test?: boolean;
  /** A test message of an event kind (an example): `test: true` in the envelope. */
  markedTest?: boolean;
}): DeliveryInsert {
  const id = prefixedId('msg');
  return {
    endpoint_id: input.endpointId,
    public_id: id,
    event_type: input.type,
    body: serializeEnvelope({
      id,
      type: input.type,
      workspaceId: input.workspaceId,
      occurredAt: input.now,
      data: input.data,
      test: input.markedTest ?? false,
    }),
    status: input.held ? 'held' : 'pending',
    attempt_count: 0,
    max_attempts: input.test ? 1 : null,
    counts_toward_pause: input.test ? 0 : 1,
    next_attempt_at: input.held ? null : input.now,
    lease_owner: null,
    lease_until: null,
    request_headers: JSON.stringify(baseRequestHeaders(id, input.type)),
    created_at: input.now,
    finished_at: null,
  };
}
