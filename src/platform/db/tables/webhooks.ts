// Webhook endpoints, deliveries (outbox and log) and attempts.
import type { Generated } from 'kysely';

export type EndpointStatus = 'active' | 'paused';
export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed' | 'held';

export interface WebhookEndpointsTable {
  id: Generated<number>;
  tenant_id: number;
  /** ep_… — the id the API shows. */
  public_id: string;
  url: string;
  description: string;
  /** JSON array of event kinds, or ["*"]. */
  events: string;
  /** AES-256-GCM under FURROW_SECRET_KEY; see signing.ts. */
  secret_encrypted: string;
  /** The secret before the last rotation, encrypted the same way; signs too until it expires. */
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: number | null;
  /** JSON object of the owner's own request headers (at most 10), or null. */
  headers: string | null;
  /** JSON object: event kind → {data field: [allowed values]}; null: every event subscribed. */
  filters: string | null;
  status: EndpointStatus;
  paused_reason: string | null;
  consecutive_failures: number;
  created_at: number;
  updated_at: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  tenant_id: number;
  endpoint_id: number;
  /** msg_… — the envelope id, X-Service-Delivery and webhook-id. */
  public_id: string;
  event_type: string;
  /** The exact bytes sent on every attempt. */
  body: string;
  status: DeliveryStatus;
  attempt_count: number;
  /** null: the length of WEBHOOK_RETRY_SCHEDULE + 1, read when an attempt is recorded. */
  max_attempts: number | null;
  /** 0 for webhook.test and manual redeliveries. */
  counts_toward_pause: number;
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  /** JSON object: the headers of the latest attempt. */
  request_headers: string;
  created_at: number;
  finished_at: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  tenant_id: number;
  delivery_id: number;
  number: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

/**
 * An endpoint's deliveries in one hour (migration 0018): those that ended in it, the attempts that
 * started in it with a histogram of their durations, and the last success and failure. Kept 8 days.
 */
export interface WebhookDeliveryHoursTable {
  tenant_id: number;
  endpoint_id: number;
  /** Epoch ms of the hour's start. */
  hour_start: number;
  succeeded: number;
  failed: number;
  attempts: number;
  /** Attempts that lasted at most 10 ms; each next column from its predecessor's bound to its own. */
  ms_10: number;
  ms_25: number;
  ms_50: number;
  ms_100: number;
  ms_250: number;
  ms_500: number;
  ms_1000: number;
  ms_2500: number;
  ms_5000: number;
  ms_10000: number;
  /** Attempts that lasted more than 10 s (timeouts). */
  ms_over: number;
  /** The longest attempt: the upper bound of the histogram's last bucket. */
  duration_max_ms: number | null;
  last_success_at: number | null;
  last_failure_at: number | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_delivery_hours: WebhookDeliveryHoursTable;
}
