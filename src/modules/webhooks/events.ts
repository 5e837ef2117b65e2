// Event kinds, as the spec lists them (6.1) with the alert lifecycle's and outages' ends and the
// operational webhook.endpoint.paused, and the envelope every message carries.

export type EventType =
  | 'iot.alert.raised'
  | 'iot.alert.resolved'
  | 'iot.device.offline'
  | 'iot.device.online'
  | 'harvest.batch.created'
  | 'webhook.endpoint.paused';
export const EVENT_TYPES: readonly EventType[] = [
  'iot.alert.raised',
  'iot.alert.resolved',
  'iot.device.offline',
  'iot.device.online',
  'harvest.batch.created',
  'webhook.endpoint.paused',
];

/** The management screen's test message; never selectable, never counts toward pausing. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** What an endpoint may subscribe to: the event kinds, or "*" for all of them. */
export const SUBSCRIBABLE = [...EVENT_TYPES, '*'] as const;

export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/** The body, serialized once: these exact bytes are sent on every attempt and on redelivery. */
export function serializeEnvelope(envelope: {
  id: string;
  type: string;
  workspaceId: string;
  occurredAt: number;
  data: unknown;
  /** A test message of an event kind: the envelope says `test: true`. */
  test?: boolean;
}): string {
  return JSON.stringify({
    id: envelope.id,
    type: envelope.type,
    ...(envelope.test ? { test: true } : {}),
    workspace_id: envelope.workspaceId,
    occurred_at: new Date(envelope.occurredAt).toISOString(),
    data: envelope.data,
  });
}

/** Headers that do not change between attempts; the signed ones are added per attempt. */
export function baseRequestHeaders(id: string, type: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'Furrow-Webhooks/1.0',
    'X-Service-Event': type,
    'X-Service-Delivery': id,
    'webhook-id': id,
  };
}
