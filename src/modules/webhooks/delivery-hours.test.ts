// The roll-up's arithmetic without a database: hours, buckets, the tally's key order, and quantiles
// interpolated within a bucket.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DURATION_COLUMNS,
  durationBucket,
  HourTally,
  histogramQuantile,
  hourStart,
} from './delivery-hours.js';

const H = 3_600_000;
const at = Date.UTC(2026, 4, 1, 10, 0, 0);

describe('webhook delivery hours', () => {
  it('floors instants to their hour, also before 1970', () => {
    assert.equal(hourStart(at), at);
    assert.equal(hourStart(at + H - 1), at);
    assert.equal(hourStart(-1), -H);
  });

  it('puts a duration in the bucket whose bound it does not pass', () => {
    assert.deepEqual(
      [0, 10, 11, 25, 26, 999, 1000, 10_000, 10_001, 60_000].map(durationBucket),
      [0, 0, 1, 1, 2, 6, 6, 9, 10, 10],
    );
    assert.equal(DURATION_COLUMNS[10], 'ms_over');
  });

  it('sums a batch per endpoint and hour, in key order', () => {
    const tally = new HourTally();
    tally.attempt(2, 9, at + 5, 30);
    tally.attempt(1, 7, at + H + 1, 3);
    tally.attempt(1, 7, at - 1, 12_000);
    tally.ended(1, 7, true, at + H + 5);
    tally.attempt(1, 7, at + H + 2, 8);
    tally.ended(1, 7, false, at + H + 9);
    tally.ended(1, 7, true, at + H + 3);
    const rows = tally.rows();
    assert.deepEqual(
      rows.map((r) => [r.tenantId, r.endpointId, r.hourStart]),
      [
        [1, 7, at - H],
        [1, 7, at + H],
        [2, 9, at],
      ],
    );
    const [early, late] = rows;
    assert.deepEqual([early!.attempts, early!.durations[10], early!.durationMaxMs], [1, 1, 12_000]);
    assert.deepEqual(
      [late!.succeeded, late!.failed, late!.attempts, late!.durations[0], late!.durationMaxMs],
      [2, 1, 2, 2, 8],
    );
    assert.deepEqual([late!.lastSuccessAt, late!.lastFailureAt], [at + H + 5, at + H + 9]);
  });

  it('interpolates a quantile within its bucket, up to the longest duration seen', () => {
    const counts = (entries: [number, number][]) => {
      const c = DURATION_COLUMNS.map(() => 0);
      for (const [bucket, n] of entries) c[bucket] = n;
      return c;
    };
    assert.equal(histogramQuantile(counts([]), null, 0.5), null);
    // 10 attempts of at most 10 ms: the median is halfway through the first bucket.
    assert.equal(histogramQuantile(counts([[0, 10]]), 9, 0.5), 4.5);
    // 8 in (25, 50], 2 in (100, 250] whose longest took 150 ms.
    const mixed = counts([
      [2, 8],
      [4, 2],
    ]);
    assert.equal(histogramQuantile(mixed, 150, 0.5), 25 + 25 * (5 / 8));
    assert.equal(histogramQuantile(mixed, 150, 0.95), 100 + 50 * (1.5 / 2));
    // Timeouts: the last bucket ends at the longest.
    assert.equal(histogramQuantile(counts([[10, 4]]), 30_000, 0.5), 10_000 + 20_000 * 0.5);
  });
});
