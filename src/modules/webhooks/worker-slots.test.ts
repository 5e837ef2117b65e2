import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClaimedDelivery } from './delivery-claim.js';
import { slotSizes, UNANSWERING_CAP, WorkerSlots } from './worker-slots.js';

describe('slotSizes', () => {
  it('takes the slots wanted, on either database, and the fair shares of them', () => {
    assert.deepEqual(slotSizes({ slots: 64 }), {
      slots: 64,
      perEndpoint: 16,
      perTenant: 32,
      claimBatch: 16,
      endpointBatch: 8,
    });
    assert.deepEqual(slotSizes({ slots: 2 }), {
      slots: 2,
      perEndpoint: 1,
      perTenant: 1,
      claimBatch: 1,
      endpointBatch: 1,
    });
  });

  it('keeps caps that are given', () => {
    assert.deepEqual(slotSizes({ slots: 8, perEndpoint: 3, perTenant: 8 }), {
      slots: 8,
      perEndpoint: 3,
      perTenant: 8,
      claimBatch: 4,
      endpointBatch: 1,
    });
  });
});

describe('WorkerSlots', () => {
  const delivery = (id: number, endpointId: number, tenantId: number) =>
    ({ id, endpointId, tenantId }) as ClaimedDelivery;

  /** Slots whose attempts run until the test ends them, counting the calls of onBatchFreed. */
  const heldSlots = (size: number, claimBatch: number) => {
    let calls = 0;
    const slots = new WorkerSlots(size, claimBatch, () => {
      calls += 1;
    });
    const ends = new Map<number, () => void>();
    return {
      slots,
      calls: () => calls,
      ends,
      occupy: (d: ClaimedDelivery) =>
        slots.occupy(d, () => new Promise<void>((resolve) => ends.set(d.id, resolve))),
    };
  };

  it('counts attempts in flight per endpoint and tenant, and calls once a batch of slots is free', async () => {
    const { slots, calls: batches, ends, occupy } = heldSlots(4, 2);
    occupy(delivery(1, 10, 100));
    occupy(delivery(2, 10, 100));
    occupy(delivery(3, 11, 101));
    assert.equal(slots.busy, 3);
    assert.deepEqual(slots.ids(), [1, 2, 3]);
    assert.deepEqual(
      [...slots.byEndpoint],
      [
        [10, 2],
        [11, 1],
      ],
    );
    assert.deepEqual(
      [...slots.byTenant],
      [
        [100, 2],
        [101, 1],
      ],
    );

    ends.get(1)!();
    await slots.attemptOf(1);
    assert.equal(batches(), 0, 'one of a batch of two');
    assert.deepEqual(
      [...slots.byEndpoint],
      [
        [10, 1],
        [11, 1],
      ],
    );
    ends.get(3)!();
    await slots.attemptOf(3);
    assert.equal(batches(), 1);
    assert.deepEqual([...slots.byTenant], [[100, 1]]);

    slots.claiming();
    ends.get(2)!();
    await slots.settled();
    assert.equal(batches(), 1, 'a claim starts the batch again');
    assert.equal(slots.busy, 0);
    assert.equal(slots.byEndpoint.size, 0);
    assert.equal(slots.byTenant.size, 0);
  });

  it('frees a slot once its answer is in, and keeps the delivery its own until it is recorded', async () => {
    const { slots, calls } = heldSlots(2, 1);
    /** Attempts that have their answer and wait for their record, which the test ends. */
    const recorded = new Map<number, () => void>();
    const answeredThen = (d: ClaimedDelivery) =>
      slots.occupy(d, async (answered) => {
        answered();
        await new Promise<void>((resolve) => recorded.set(d.id, resolve));
      });
    answeredThen(delivery(1, 10, 100));
    assert.equal(slots.busy, 0, 'answered: its slot is free for another');
    assert.equal(calls(), 1, 'the claiming loop is woken');
    assert.deepEqual(slots.ids(), [1], 'not claimed again while it is recorded');
    assert.equal(slots.unfinished, 1);
    assert.equal(slots.byEndpoint.size, 0, 'no longer counted toward its shares');
    answeredThen(delivery(2, 10, 100));
    // Two being recorded with two slots: the records have fallen behind, and a third answered
    // attempt keeps its slot until its record is done.
    answeredThen(delivery(3, 11, 100));
    assert.equal(slots.busy, 1);
    assert.deepEqual([...slots.byEndpoint], [[11, 1]]);
    recorded.get(3)!();
    await slots.attemptOf(3);
    assert.equal(slots.busy, 0);
    recorded.get(1)!();
    recorded.get(2)!();
    await slots.settled();
    assert.equal(slots.unfinished, 0);
    assert.deepEqual(slots.ids(), []);

    // An attempt that never says it was answered frees its slot when it ends.
    const { slots: plain, ends, occupy: occupyHeld } = heldSlots(2, 1);
    occupyHeld(delivery(4, 10, 100));
    assert.equal(plain.busy, 1);
    ends.get(4)!();
    await plain.settled();
    assert.equal(plain.busy, 0);
  });

  it("calls once half of one endpoint's share is free, before a batch of the tenant's is", async () => {
    let calls = 0;
    const slots = new WorkerSlots(
      32,
      16,
      () => {
        calls += 1;
      },
      8,
    );
    const ends = new Map<number, () => void>();
    for (let id = 1; id <= 16; id++)
      slots.occupy(delivery(id, 10, 100), () => new Promise<void>((resolve) => ends.set(id, resolve)));
    for (let id = 1; id <= 7; id++) ends.get(id)!();
    await Promise.all([1, 2, 3, 4, 5, 6, 7].map((id) => slots.attemptOf(id)));
    assert.equal(calls, 0, 'seven of its sixteen');
    ends.get(8)!();
    await slots.attemptOf(8);
    assert.equal(calls, 1, 'half its share: the next claim need not wait for the slowest of the rest');
  });

  it('tells whether endpoints have their full share in flight, and calls at once when an awaited one frees a slot', async () => {
    const { slots, calls, ends, occupy } = heldSlots(8, 4);
    occupy(delivery(1, 10, 100));
    occupy(delivery(2, 10, 100));
    occupy(delivery(3, 11, 100));
    assert.equal(slots.allFull([10], 2), true);
    assert.equal(slots.allFull([10, 11], 2), false, 'endpoint 11 has room');
    assert.equal(slots.allFull([12], 2), false, 'nothing in flight');

    slots.awaitSlot([10]);
    ends.get(3)!();
    await slots.attemptOf(3);
    assert.equal(calls(), 0, 'endpoint 11 was not awaited, and one is no batch of four');
    ends.get(1)!();
    await slots.attemptOf(1);
    assert.equal(calls(), 1, 'a slot of the awaited endpoint 10');
    ends.get(2)!();
    await slots.attemptOf(2);
    assert.equal(calls(), 1, 'once only');

    // A claim that begins meanwhile may leave the endpoint's new deliveries for its cap again: the
    // endpoint stays awaited.
    slots.awaitSlot([10]);
    slots.claiming();
    occupy(delivery(4, 10, 100));
    ends.get(4)!();
    await slots.settled();
    assert.equal(calls(), 2, 'still awaited after a claim');
  });

  it('holds an endpoint whose receiver stopped answering to one slot until it answers, and calls when that slot frees', async () => {
    const { slots, calls, ends, occupy } = heldSlots(8, 4);
    occupy(delivery(1, 10, 100));
    assert.equal(slots.allFull([10], 2), false);

    slots.answered(10, false);
    assert.deepEqual([...slots.unanswering], [[10, UNANSWERING_CAP]]);
    assert.equal(slots.allFull([10], 2), true, 'one in flight is its cap now');
    slots.answered(11, true);
    assert.deepEqual([...slots.unanswering], [[10, 1]], 'an answer elsewhere changes nothing');
    ends.get(1)!();
    await slots.attemptOf(1);
    assert.equal(calls(), 1, 'its one slot is free: a claim may take its next attempt');

    occupy(delivery(2, 10, 100));
    slots.answered(10, true);
    assert.equal(slots.unanswering.size, 0, 'an answer gives the share back');
    assert.equal(slots.allFull([10], 2), false);
    ends.get(2)!();
    await slots.attemptOf(2);
    assert.equal(calls(), 2, 'the end of the attempt that answered calls too');

    occupy(delivery(3, 10, 100));
    ends.get(3)!();
    await slots.attemptOf(3);
    assert.equal(calls(), 2, 'an endpoint with its share waits for a batch again');
  });
});
