import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wakeUpEndpointsOf, wakeUpPayload } from './delivery-wake-up.js';

describe('wake-up payloads', () => {
  it('name the endpoints of the new deliveries, once each', () => {
    assert.equal(wakeUpPayload([3, 12, 3]), '3,12');
    assert.deepEqual(wakeUpEndpointsOf('3,12'), [3, 12]);
  });

  it('stand for any endpoint when empty, unknown, too long or not well formed', () => {
    assert.equal(wakeUpPayload(undefined), '');
    assert.equal(wakeUpPayload([]), '');
    const many = Array.from({ length: 2000 }, (_, i) => 1_000_000 + i);
    assert.equal(wakeUpPayload(many), '');
    for (const payload of ['', undefined, '3,', 'a', '1;2'])
      assert.equal(wakeUpEndpointsOf(payload), undefined);
  });
});
