// What happens to a delivery after an attempt, as a pure function: the recorder (delivery-record.ts)
// reads the rows, asks here, and writes the answer. Retry when, fail, pause, hold.
import type { DeliveryStatus } from '../../platform/db/tables/webhooks.js';

/** Consecutive fully failed deliveries that pause an endpoint (spec 6.4). */
export const PAUSE_AFTER_FAILURES = 5;

export interface AttemptFacts {
  /** The attempt's number, from 1. */
  number: number;
  /** Attempts the delivery may make in all. */
  maxAttempts: number;
  /** Whether the receiver answered 2xx in time. */
  ok: boolean;
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
  if (facts.number >= facts.maxAttempts) return settle('failed');
  if (facts.endpointStatus === 'paused' && facts.countsTowardPause) return settle('held');
  const delays = facts.retryScheduleMs;
  const delay = delays[Math.min(facts.number - 1, delays.length - 1)] ?? 0;
  return settle('retrying', facts.now + delay);
}

/** Whether an endpoint pauses once its streak of fully failed deliveries has reached `streak`. */
export function pausesAfter(streak: number, endpointStatus: 'active' | 'paused'): boolean {
  return endpointStatus === 'active' && streak >= PAUSE_AFTER_FAILURES;
}
