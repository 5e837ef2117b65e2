// Roll-up statements: a batch of readings added to the 1-minute, 1-hour and 1-day buckets, and
// a device's metric read back bucket by bucket.
import { CompiledQuery, sql } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import { deleteScoped, type Scope, selectScoped } from '../../platform/db/scope.js';
import type { Db } from '../../platform/db/types.js';

export type Bucket = '1m' | '1h' | '1d';

export const BUCKET_MS: Record<Bucket, number> = { '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 };

export const TABLES = { '1m': 'iot_readings_1m', '1h': 'iot_readings_1h', '1d': 'iot_readings_1d' } as const;

/** The start of the bucket an instant falls in (floor, also before 1970). */
export function bucketStart(ms: number, bucket: Bucket): number {
  const size = BUCKET_MS[bucket];
  return ms - (((ms % size) + size) % size);
}

export interface RolledReading {
  device_id: number;
  metric: string;
  value: number;
  recorded_at: number;
}

interface RollupRow {
  device_id: number;
  metric: string;
  bucket_start: number;
  min: number;
  max: number;
  sum: number;
  count: number;
}

/** The batch summed per device, metric and bucket, in key order (the order rows are locked in). */
export function rollUp(readings: readonly RolledReading[], bucket: Bucket): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  for (const r of readings) {
    const start = bucketStart(r.recorded_at, bucket);
    const key = `${r.device_id}\u0000${r.metric}\u0000${start}`;
    const row = rows.get(key);
    if (row) {
      if (r.value < row.min) row.min = r.value;
      if (r.value > row.max) row.max = r.value;
      row.sum += r.value;
      row.count += 1;
    } else {
      rows.set(key, {
        device_id: r.device_id,
        metric: r.metric,
        bucket_start: start,
        min: r.value,
        max: r.value,
        sum: r.value,
        count: 1,
      });
    }
  }
  return [...rows.values()].sort(
    (a, b) =>
      a.device_id - b.device_id ||
      (a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0) ||
      a.bucket_start - b.bucket_start,
  );
}

/**
 * Adds a batch of readings to every roll-up: summed in memory first, then one upsert per level
 * (per 500 buckets) that merges into what the buckets already hold, so late readings count too.
 * The statement is written out rather than built: it runs with every batch, and building and
 * compiling it each time cost more than running it.
 */
export async function addToRollups(scope: Scope, readings: readonly RolledReading[]): Promise<void> {
  if (readings.length === 0) return;
  const pg = isPostgresDb(scope.db);
  for (const bucket of ['1m', '1h', '1d'] as const) {
    const rows = rollUp(readings, bucket);
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const parameters = chunk.flatMap((r) => [
        scope.tenantId,
        r.device_id,
        r.metric,
        r.bucket_start,
        r.min,
        r.max,
        r.sum,
        r.count,
      ]);
      await scope.db.executeQuery(CompiledQuery.raw(upsertSql(TABLES[bucket], chunk.length, pg), parameters));
    }
  }
}

const upsertTexts = new Map<string, string>();

/** `insert … on conflict do update` of `rows` buckets into a roll-up table, merging min, max, sum and count. */
function upsertSql(table: (typeof TABLES)[Bucket], rows: number, pg: boolean): string {
  const key = `${pg ? 'pg' : 'sqlite'}:${table}:${rows}`;
  let text = upsertTexts.get(key);
  if (text === undefined) {
    const tuple = (n: number) =>
      `(${Array.from({ length: 8 }, (_, c) => (pg ? `$${n * 8 + c + 1}` : '?')).join(', ')})`;
    // SQLite's two-argument min and max are PostgreSQL's least and greatest.
    const [least, greatest] = pg ? ['least', 'greatest'] : ['min', 'max'];
    text =
      `insert into ${table} (tenant_id, device_id, metric, bucket_start, min, max, sum, count) values ` +
      `${Array.from({ length: rows }, (_, n) => tuple(n)).join(', ')} ${mergeIntoBuckets(table, least, greatest)}`;
    upsertTexts.set(key, text);
  }
  return text;
}

/** The `on conflict` clause that merges new buckets into those a roll-up table already holds. */
export function mergeIntoBuckets(table: (typeof TABLES)[Bucket], least: string, greatest: string): string {
  return (
    'on conflict (tenant_id, device_id, metric, bucket_start) do update set ' +
    `min = ${least}(${table}.min, excluded.min), max = ${greatest}(${table}.max, excluded.max), ` +
    `sum = ${table}.sum + excluded.sum, count = ${table}.count + excluded.count`
  );
}

export interface SeriesPoint {
  bucket_start: number;
  min: number;
  max: number;
  sum: number;
  count: number;
}

/** A device's metric per bucket, buckets starting within [from, to], oldest first; only buckets with data. */
export async function readSeries(
  scope: Scope,
  filter: { deviceId: number; metric: string; bucket: Bucket; from: number; to: number },
): Promise<SeriesPoint[]> {
  const rows = await selectScoped(scope, TABLES[filter.bucket])
    .select(['bucket_start', 'min', 'max', 'sum', 'count'])
    .where('device_id', '=', filter.deviceId)
    .where('metric', '=', filter.metric)
    .where('bucket_start', '>=', filter.from)
    .where('bucket_start', '<=', filter.to)
    .orderBy('bucket_start')
    .execute();
  return rows.map((r) => ({ ...r, bucket_start: Number(r.bucket_start), count: Number(r.count) }));
}

// Retention: statements across tenants, each small enough to hold its locks only briefly.

/** The oldest 1-minute buckets starting before `before`, of every tenant. */
export async function oldestMinuteBuckets(
  db: Db,
  before: number,
  limit: number,
): Promise<{ tenant_id: number; device_id: number; bucket_start: number }[]> {
  const rows = await db
    .selectFrom('iot_readings_1m')
    .select(['tenant_id', 'device_id', 'bucket_start'])
    .where('bucket_start', '<', before)
    .orderBy('bucket_start')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, bucket_start: Number(r.bucket_start) }));
}

/** Deletes up to `limit` raw readings of a device taken before `before`; answers how many. */
export async function deleteRawReadings(
  scope: Scope,
  deviceId: number,
  before: number,
  limit: number,
): Promise<number> {
  const result = await deleteScoped(scope, 'iot_readings')
    .where('id', 'in', () =>
      selectScoped(scope, 'iot_readings')
        .select('id')
        .where('device_id', '=', deviceId)
        .where('recorded_at', '<', before)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes a device's 1-minute buckets starting before `before` that no raw reading is left in;
 * answers how many. A late reading stored since its minute's raw readings were deleted keeps its
 * bucket, so the next run finds it.
 */
export async function deleteMinuteBuckets(scope: Scope, deviceId: number, before: number): Promise<number> {
  const result = await deleteScoped(scope, 'iot_readings_1m')
    .where('device_id', '=', deviceId)
    .where('bucket_start', '<', before)
    .where(
      sql<boolean>`not exists (select 1 from iot_readings r
        where r.tenant_id = iot_readings_1m.tenant_id and r.device_id = iot_readings_1m.device_id
          and r.recorded_at >= iot_readings_1m.bucket_start and r.recorded_at < iot_readings_1m.bucket_start + 60000
          and r.metric = iot_readings_1m.metric)`,
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
