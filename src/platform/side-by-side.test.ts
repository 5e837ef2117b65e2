import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SideBySide } from './side-by-side.js';

describe('SideBySide', () => {
  it('runs at most `limit` at once, the others in the order they came, and frees a turn on failure', async () => {
    const bound = new SideBySide(2);
    const ends = new Map<number, { resolve(): void; reject(err: Error): void }>();
    const started: number[] = [];
    let most = 0;
    const job = (n: number) =>
      bound.run(async () => {
        started.push(n);
        most = Math.max(most, bound.counts.running);
        await new Promise<void>((resolve, reject) => ends.set(n, { resolve, reject }));
        return n;
      });
    const results = [1, 2, 3, 4, 5].map((n) => job(n).catch((err: Error) => err.message));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [1, 2]);
    assert.deepEqual(bound.counts, { running: 2, waiting: 3 });

    ends.get(2)!.reject(new Error('two failed'));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [1, 2, 3], 'the failure freed its turn for the first waiting');
    // A newcomer while others wait queues behind them.
    results.push(job(6).catch((err: Error) => err.message));
    ends.get(1)!.resolve();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [1, 2, 3, 4]);
    for (const n of [3, 4]) ends.get(n)!.resolve();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [1, 2, 3, 4, 5, 6]);
    for (const n of [5, 6]) ends.get(n)!.resolve();
    assert.deepEqual(await Promise.all(results), [1, 'two failed', 3, 4, 5, 6]);
    assert.equal(most, 2);
    assert.deepEqual(bound.counts, { running: 0, waiting: 0 });
  });

  it('refuses a limit below one', () => {
    assert.throws(() => new SideBySide(0), /limit must be 1 or more/);
  });
});
