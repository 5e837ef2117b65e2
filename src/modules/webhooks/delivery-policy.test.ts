import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AttemptFacts,
  MAX_RETRY_AFTER_MS,
  nextDeliveryState,
  PAUSE_AFTER_FAILURES,
  pausesAfter,
  retryAfterDelayMs,
} from './delivery-policy.js';

const SCHEDULE = [60_000, 300_000, 1_800_000];
const facts = (over: Partial<AttemptFacts>): AttemptFacts => ({
  number: 1,
  maxAttempts: SCHEDULE.length + 1,
  ok: false,
  current: 'pending',
  endpointStatus: 'active',
  countsTowardPause: true,
  retryScheduleMs: SCHEDULE,
  now: 1_000,
  ...over,
});

describe('delivery policy', () => {
  it('finishes a delivery whose attempt succeeded', () => {
    assert.deepEqual(nextDeliveryState(facts({ ok: true, number: 3 })), {
      status: 'succeeded',
      nextAttemptAt: null,
      finished: true,
    });
  });

  it('retries a failed attempt after the schedule delay of its number', () => {
    for (const [number, delay] of SCHEDULE.entries()) {
      assert.deepEqual(nextDeliveryState(facts({ number: number + 1 })), {
        status: 'retrying',
        nextAttemptAt: 1_000 + delay,
        finished: false,
      });
    }
  });

  it('fails the delivery after its last attempt', () => {
    assert.deepEqual(nextDeliveryState(facts({ number: 4 })), {
      status: 'failed',
      nextAttemptAt: null,
      finished: true,
    });
    // A test message has one attempt.
    assert.equal(nextDeliveryState(facts({ maxAttempts: 1, countsTowardPause: false })).status, 'failed');
  });

  it('holds a failed delivery of a paused endpoint, but not a test message', () => {
    assert.equal(nextDeliveryState(facts({ endpointStatus: 'paused' })).status, 'held');
    assert.equal(
      nextDeliveryState(facts({ endpointStatus: 'paused', countsTowardPause: false })).status,
      'retrying',
    );
  });

  it('keeps held a delivery whose endpoint was paused while the attempt was in flight', () => {
    assert.equal(nextDeliveryState(facts({ current: 'held', ok: true })).status, 'held');
    assert.equal(nextDeliveryState(facts({ current: 'held', number: 4 })).status, 'held');
  });

  it('pauses an active endpoint at the fifth fully failed delivery in a row', () => {
    assert.equal(PAUSE_AFTER_FAILURES, 5);
    assert.equal(pausesAfter(4, 'active'), false);
    assert.equal(pausesAfter(5, 'active'), true);
    assert.equal(pausesAfter(9, 'paused'), false);
  });

  it('holds a delivery answered 410 Gone (a test message fails), whatever attempts are left', () => {
    for (const number of [1, 4]) {
      assert.deepEqual(nextDeliveryState(facts({ gone: true, number })), {
        status: 'held',
        nextAttemptAt: null,
        finished: false,
      });
    }
    assert.equal(
      nextDeliveryState(facts({ gone: true, maxAttempts: 1, countsTowardPause: false })).status,
      'failed',
    );
  });

  it('moves a retry later for Retry-After, never earlier than the schedule, never past 24 hours', () => {
    const at = (retryAfterMs: number | null) => nextDeliveryState(facts({ retryAfterMs })).nextAttemptAt;
    assert.equal(at(null), 1_000 + 60_000);
    assert.equal(at(120_000), 1_000 + 120_000);
    assert.equal(at(5_000), 1_000 + 60_000, 'not earlier than the schedule');
    assert.equal(at(3 * MAX_RETRY_AFTER_MS), 1_000 + MAX_RETRY_AFTER_MS, 'capped');
    assert.equal(nextDeliveryState(facts({ retryAfterMs: 120_000, number: 4 })).status, 'failed');
  });

  it('reads Retry-After as delta seconds or an HTTP date, and ignores anything else', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    assert.equal(retryAfterDelayMs('120', now), 120_000);
    assert.equal(retryAfterDelayMs(' 0 ', now), 0);
    assert.equal(retryAfterDelayMs('Tue, 24 Nov 2026 12:05:00 GMT', now), 300_000);
    assert.equal(retryAfterDelayMs('Tuesday, 24-Nov-26 12:05:00 GMT', now), 300_000);
    assert.equal(retryAfterDelayMs('Tue Nov 24 12:05:00 2026', now), 300_000);
    assert.equal(retryAfterDelayMs('Tue, 24 Nov 2026 11:00:00 GMT', now), 0, 'a date past asks for nothing');
    for (const bogus of ['soon', '-5', '1.5', '2026-11-24T12:05:00Z', '', 'Tue, 99 Nov 2026 12:05:00 GMT']) {
      assert.equal(retryAfterDelayMs(bogus, now), null, bogus);
    }
    assert.equal(retryAfterDelayMs(undefined, now), null);
  });
});
