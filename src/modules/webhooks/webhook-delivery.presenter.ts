// A delivery as the management API answers it: the request as sent and its attempts.
import type { AttemptRow, DeliveryRow } from './webhook.repository.js';

const iso = (ms: number) => new Date(ms).toISOString();

export interface Delivery {
  id: string;
  event_type: string;
  status: DeliveryRow['status'];
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  request: { headers: Record<string, string>; body: string };
  attempts: {
    number: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    response_excerpt: string | null;
  }[];
}

export function toDelivery(row: DeliveryRow, attempts: AttemptRow[]): Delivery {
  return {
    id: row.public_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at === null ? null : iso(row.next_attempt_at),
    created_at: iso(row.created_at),
    request: { headers: JSON.parse(row.request_headers) as Record<string, string>, body: row.body },
    attempts: attempts.map((a) => ({
      number: a.number,
      started_at: iso(a.started_at),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
      response_excerpt: a.response_excerpt,
    })),
  };
}
