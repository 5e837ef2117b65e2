// Roll-up statements: a batch of readings added to the 1-minute, 1-hour and 1-day buckets, and
// a device's metric read back bucket by bucket.
import { CompiledQuery, sql } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import { deleteScoped, type Scope, selectScoped } from '../../platform/db/scope.js';
import type { Db } from '../../platform/db/types.js';

export type Bucket = '1m' | '1h' | '1d';

export const BUCKET_MS: Record<Bucket, number> = { '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 };

const TABLES = { '1m': 'iot_readings_1m', '1h': 'iot_readings_1h', '1d': 'iot_readings_1d' } as const;

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

const LEVELS = ['1m', '1h', '1d'] as const;

/**
 * Adds a batch of readings to every roll-up: summed in memory first, then merged into what the
 * buckets already hold, so late readings count too. On PostgreSQL one statement upserts the three
 * levels (each level's buckets as arrays); on SQLite one upsert per level (per 500 buckets). The
 * statements are written out rather than built: they run with every batch, and building and
 * compiling them each time cost more than running them.
 */
export async function addToRollups(scope: Scope, readings: readonly RolledReading[]): Promise<void> {
  if (readings.length === 0) return;
  if (isPostgresDb(scope.db)) {
    const parameters: unknown[] = [scope.tenantId];
    for (const bucket of LEVELS) parameters.push(...bucketArrays(rollUp(readings, bucket), (id) => id));
    await scope.db.executeQuery(CompiledQuery.raw(ALL_LEVELS_SQL, parameters));
    return;
  }
  for (const bucket of LEVELS) {
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
      await scope.db.executeQuery(CompiledQuery.raw(upsertSql(TABLES[bucket], chunk.length), parameters));
    }
  }
}

/**
 * PostgreSQL: the upsert of a level's buckets given as seven arrays from parameter `$first` on (see
 * bucketArrays), the tenant as `$1`. A device is its id, or with `byCode` its code among the rows
 * of the statement's `found` (its devices), and then the buckets are written only when `guard` holds.
 */
export function upsertFromArrays(bucket: Bucket, first: number, byCode?: { guard: string }): string {
  const table = TABLES[bucket];
  const types = [byCode ? 'text' : 'integer', 'text', 'bigint', 'float8', 'float8', 'float8', 'bigint'];
  const arrays = types.map((type, i) => `$${first + i}::${type}[]`).join(', ');
  const from = `from unnest(${arrays}) as b(device, metric, bucket_start, min, max, sum, count)`;
  return (
    `insert into ${table} (tenant_id, device_id, metric, bucket_start, min, max, sum, count) ` +
    (byCode
      ? `select $1, f.id, b.metric, b.bucket_start, b.min, b.max, b.sum, b.count ${from} ` +
        `join found f on f.code = b.device where ${byCode.guard} order by f.id, b.metric, b.bucket_start `
      : `select $1, b.* ${from} `) +
    mergeIntoBuckets(table, 'least', 'greatest')
  );
}

/** A level's buckets as the seven arrays upsertFromArrays takes, each device named by `device`. */
export function bucketArrays<D>(rows: readonly RollupRow[], device: (id: number) => D): unknown[][] {
  return [
    rows.map((r) => device(r.device_id)),
    rows.map((r) => r.metric),
    rows.map((r) => r.bucket_start),
    rows.map((r) => r.min),
    rows.map((r) => r.max),
    rows.map((r) => r.sum),
    rows.map((r) => r.count),
  ];
}

/** The three levels' upserts in one statement: $1 the tenant, then seven arrays per level. */
const ALL_LEVELS_SQL =
  `with ${LEVELS.slice(0, 2)
    .map((bucket, i) => `rollup_${bucket} as (${upsertFromArrays(bucket, 2 + i * 7)})`)
    .join(', ')} ` + upsertFromArrays('1d', 16);

const upsertTexts = new Map<string, string>();

/** SQLite: `insert … on conflict do update` of `rows` buckets into a roll-up table. */
function upsertSql(table: (typeof TABLES)[Bucket], rows: number): string {
  const key = `${table}:${rows}`;
  let text = upsertTexts.get(key);
  if (text === undefined) {
    const tuple = `(${Array.from({ length: 8 }, () => '?').join(', ')})`;
    // SQLite's two-argument min and max are PostgreSQL's least and greatest.
    text =
      `insert into ${table} (tenant_id, device_id, metric, bucket_start, min, max, sum, count) values ` +
      `${Array.from({ length: rows }, () => tuple).join(', ')} ${mergeIntoBuckets(table, 'min', 'max')}`;
    upsertTexts.set(key, text);
  }
  return text;
}

/** The `on conflict` clause that merges new buckets into those a roll-up table already holds. */
function mergeIntoBuckets(table: (typeof TABLES)[Bucket], least: string, greatest: string): string {
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
