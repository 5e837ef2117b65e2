// A device's readings for charts: one metric bucket by bucket (1 minute, 1 hour, 1 day), read from
// the roll-ups that ingestion keeps.
import { isoTime, parseTimestamp } from '../../platform/dates.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import type { RequestContext } from '../../platform/resource/context.js';
import { findDevice } from './device.repository.js';
import { MAX_SERIES_BUCKETS } from './reading.schemas.js';
import { BUCKET_MS, type Bucket, bucketStart, readSeries } from './reading-rollup.repository.js';

/** The period charted when `from` is not given: a day of minutes, a week of hours, 30 days. */
export const DEFAULT_PERIOD_MS: Record<Bucket, number> = {
  '1m': 24 * 3_600_000,
  '1h': 7 * 86_400_000,
  '1d': 30 * 86_400_000,
};

export interface SeriesQuery {
  metric: string;
  bucket?: Bucket | undefined;
  from?: string | null | undefined;
  to?: string | null | undefined;
}

/** The first and last bucket starts of a query; a span of more than MAX_SERIES_BUCKETS is a 422 on from. */
export function seriesRange(
  query: SeriesQuery,
  now: number,
): { bucket: Bucket; first: number; last: number } {
  const bucket = query.bucket ?? '1h';
  const instant = (field: 'from' | 'to') => {
    const raw = query[field];
    if (raw === undefined || raw === null) return undefined;
    const ms = parseTimestamp(raw);
    if (ms === undefined) throw validationFailed([{ field, message: 'field.timestamp' }]);
    return ms;
  };
  const to = instant('to') ?? now;
  const from = instant('from') ?? to - DEFAULT_PERIOD_MS[bucket];
  if (from > to) throw validationFailed([{ field: 'to', message: 'iot.series_reversed' }]);
  const first = bucketStart(from, bucket);
  const last = bucketStart(to, bucket);
  const buckets = (last - first) / BUCKET_MS[bucket] + 1;
  if (buckets > MAX_SERIES_BUCKETS) {
    throw validationFailed([
      {
        field: 'from',
        message: 'iot.series_too_long',
        params: { buckets, bucket, limit: MAX_SERIES_BUCKETS },
      },
    ]);
  }
  return { bucket, first, last };
}

/** `[{t, min, max, avg, count}]` of a device's metric, oldest first, buckets with readings only. */
export async function deviceReadingSeries(ctx: RequestContext, deviceId: number, query: SeriesQuery) {
  if (!(await findDevice(ctx.scope, deviceId))) throw notFound();
  const { bucket, first, last } = seriesRange(query, ctx.clock.now());
  const points = await readSeries(ctx.scope, {
    deviceId,
    metric: query.metric,
    bucket,
    from: first,
    to: last,
  });
  return points.map((p) => ({
    t: isoTime(p.bucket_start),
    min: p.min,
    max: p.max,
    avg: p.sum / p.count,
    count: p.count,
  }));
}
