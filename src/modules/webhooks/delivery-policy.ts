// What happens to a delivery after an attempt, as a pure function: the recorder (delivery-record.ts)
// reads the rows, asks here, and writes the answer. Retry when, fail, pause, hold; and the receiver's
// own signals: 410 Gone, and Retry-After on 429 and 503.
import type { DeliveryStatus } from '../../platform/db/tables/webhooks.js';

/** Consecutive fully failed deliveries that pause an endpoint (spec 6.4). */
export const PAUSE_AFTER_FAILURES = 5;
/** The status that pauses an endpoint at once: the receiver says the URL is gone for good. */
export const GONE_STATUS = 410;
/** A receiver's Retry-After moves an attempt at most this far ahead of its answer. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export interface AttemptFacts {
  /** The attempt's number, from 1. */
  number: number;
  /** Attempts the delivery may make in all. */
  maxAttempts: number;
  /** Whether the receiver answered 2xx in time. */
  ok: boolean;
  /** The receiver answered 410 Gone: the endpoint is paused and the delivery held (tests: failed). */
  gone?: boolean;
  /** The delay the receiver asked for with Retry-After (retryAfterDelayMs), if any. */
  retryAfterMs?: number | null;
  /** The delivery's status when the attempt is recorded (held: the endpoint was paused meanwhile). */
  current: DeliveryStatus;
  /** The endpoint's status, when known (needed after a failed attempt only). */
  endpointStatus: 'active' | 'paused' | undefined;
  /** Test messages never count toward pausing and are sent even to a paused endpoint. */
  countsTowardPause: boolean;
  /** Delays between attempts: WEBHOOK_RETRY_SCHEDULE. */
  retryScheduleMs: readonly number[];
  now: number;
}

export interface NextState {
  status: DeliveryStatus;
  /** When a retrying delivery falls due; null otherwise. */
  nextAttemptAt: number | null;
  /** Succeeded or failed: the delivery leaves the queue for the log. */
  finished: boolean;
}

/** The delivery's state after an attempt. */
export function nextDeliveryState(facts: AttemptFacts): NextState {
  const settle = (status: DeliveryStatus, nextAttemptAt: number | null = null): NextState => ({
    status,
    nextAttemptAt,
    finished: status === 'succeeded' || status === 'failed',
  });
  // Paused while the attempt was in flight: it stays held and is sent again on enable.
  if (facts.current === 'held') return settle('held');
  if (facts.ok) return settle('succeeded');
  // Held, not failed: once the owner has fixed the URL and enabled the endpoint it goes again.
  if (facts.gone) return settle(facts.countsTowardPause ? 'held' : 'failed');
  if (facts.number >= facts.maxAttempts) return settle('failed');
  if (facts.endpointStatus === 'paused' && facts.countsTowardPause) return settle('held');
  const delays = facts.retryScheduleMs;
  const scheduled = delays[Math.min(facts.number - 1, delays.length - 1)] ?? 0;
  // Retry-After moves the attempt later, never earlier than the schedule, never past the cap.
  const asked = Math.min(facts.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return settle('retrying', facts.now + Math.max(scheduled, asked));
}

/** RFC 9110 HTTP-date: IMF-fixdate, the obsolete RFC 850 form, or asctime. */
const HTTP_DATE =
  /^(?:[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * The delay a Retry-After value asks for at `now`: delta seconds or an HTTP date (a date already
 * past asks for none). Anything else is ignored (null). The cap is applied by nextDeliveryState.
 */
export function retryAfterDelayMs(value: string | undefined | null, now: number): number | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  if (/^\d{1,12}$/.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return null;
  // asctime carries no zone; HTTP dates are all GMT.
  const at = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Whether an endpoint pauses once its streak of fully failed deliveries has reached `streak`. */
export function pausesAfter(streak: number, endpointStatus: 'active' | 'paused'): boolean {
  return endpointStatus === 'active' && streak >= PAUSE_AFTER_FAILURES;
}
