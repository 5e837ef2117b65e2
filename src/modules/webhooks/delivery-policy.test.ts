import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AttemptFacts,
  nextDeliveryState,
  PAUSE_AFTER_FAILURES,
  pausesAfter,
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
});
