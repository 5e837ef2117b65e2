// The hourly roll-up of each endpoint's deliveries (webhook_delivery_hours), which the stats read:
// the log keeps only an endpoint's newest 50 finished deliveries. Attempts are tallied in memory while
// a transaction records them (delivery-record.ts), then added with one upsert per endpoint and hour,
// in key order, so that concurrent transactions lock the rows in the same order.
import { CompiledQuery } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import type { DirectStatements } from '../../platform/db/direct-transaction.js';
import type { Db } from '../../platform/db/types.js';

export const HOUR_MS = 3_600_000;
/** Rows are kept this long: the 7-day window and a day to spare. */
export const HOURS_KEPT_MS = 8 * 86_400_000;
/** Upper bounds (ms, inclusive) of the duration histogram's buckets; a last bucket holds longer attempts. */
export const DURATION_BOUNDS_MS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;
/** The histogram's columns, bucket by bucket. */
export const DURATION_COLUMNS = [
  'ms_10',
  'ms_25',
  'ms_50',
  'ms_100',
  'ms_250',
  'ms_500',
  'ms_1000',
  'ms_2500',
  'ms_5000',
  'ms_10000',
  'ms_over',
] as const;

/** The start of the hour an instant falls in (floor, also before 1970). */
export function hourStart(ms: number): number {
  return ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

/** The histogram bucket of a duration. */
export function durationBucket(ms: number): number {
  const i = DURATION_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i === -1 ? DURATION_BOUNDS_MS.length : i;
}

/** What one endpoint's hour gains from a transaction. */
export interface HourRow {
  tenantId: number;
  endpointId: number;
  hourStart: number;
  succeeded: number;
  failed: number;
  attempts: number;
  /** Attempts per histogram bucket (DURATION_COLUMNS). */
  durations: number[];
  durationMaxMs: number | null;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
}

/** The attempts recorded by one transaction, summed per endpoint and hour. */
export class HourTally {
  private readonly byKey = new Map<string, HourRow>();

  private row(tenantId: number, endpointId: number, at: number): HourRow {
    const start = hourStart(at);
    const key = `${tenantId}:${endpointId}:${start}`;
    let row = this.byKey.get(key);
    if (!row) {
      row = {
        tenantId,
        endpointId,
        hourStart: start,
        succeeded: 0,
        failed: 0,
        attempts: 0,
        durations: DURATION_COLUMNS.map(() => 0),
        durationMaxMs: null,
        lastSuccessAt: null,
        lastFailureAt: null,
      };
      this.byKey.set(key, row);
    }
    return row;
  }

  /** An attempt, in the hour it started. */
  attempt(tenantId: number, endpointId: number, startedAt: number, durationMs: number): void {
    const row = this.row(tenantId, endpointId, startedAt);
    row.attempts += 1;
    row.durations[durationBucket(durationMs)]! += 1;
    row.durationMaxMs = Math.max(row.durationMaxMs ?? 0, durationMs);
  }

  /** A delivery that ended, in the hour it ended. */
  ended(tenantId: number, endpointId: number, succeeded: boolean, at: number): void {
    const row = this.row(tenantId, endpointId, at);
    if (succeeded) {
      row.succeeded += 1;
      row.lastSuccessAt = Math.max(row.lastSuccessAt ?? at, at);
    } else {
      row.failed += 1;
      row.lastFailureAt = Math.max(row.lastFailureAt ?? at, at);
    }
  }

  /** The rows in key order (tenant, endpoint, hour): the order their database rows are locked in. */
  rows(): HourRow[] {
    return [...this.byKey.values()].sort(
      (a, b) => a.tenantId - b.tenantId || a.endpointId - b.endpointId || a.hourStart - b.hourStart,
    );
  }
}

const COLUMNS = [
  'tenant_id',
  'endpoint_id',
  'hour_start',
  'succeeded',
  'failed',
  'attempts',
  ...DURATION_COLUMNS,
  'duration_max_ms',
  'last_success_at',
  'last_failure_at',
];
const SUMMED = ['succeeded', 'failed', 'attempts', ...DURATION_COLUMNS];
const LATEST = ['duration_max_ms', 'last_success_at', 'last_failure_at'];

const upsertTexts = new Map<boolean, string>();

/**
 * `insert … on conflict do update` of one row, adding the counts to the hour's and keeping the
 * greater of the maxima (either may be null; SQLite's two-argument max is null when one is).
 * Written out once per dialect: it runs with every recorded batch.
 */
function upsertSql(pg: boolean): string {
  let text = upsertTexts.get(pg);
  if (text === undefined) {
    const t = 'webhook_delivery_hours';
    const greatest = pg ? 'greatest' : 'max';
    const values = COLUMNS.map((_, i) => (pg ? `$${i + 1}` : '?')).join(', ');
    const sets = [
      ...SUMMED.map((c) => `${c} = ${t}.${c} + excluded.${c}`),
      ...LATEST.map(
        (c) => `${c} = ${greatest}(coalesce(${t}.${c}, excluded.${c}), coalesce(excluded.${c}, ${t}.${c}))`,
      ),
    ];
    text =
      `insert into ${t} (${COLUMNS.join(', ')}) values (${values}) ` +
      `on conflict (tenant_id, endpoint_id, hour_start) do update set ${sets.join(', ')}`;
    upsertTexts.set(pg, text);
  }
  return text;
}

/** An upsert's parameters: a roll-up row's columns in COLUMNS order. */
function upsertValues(r: HourRow): unknown[] {
  return [
    r.tenantId,
    r.endpointId,
    r.hourStart,
    r.succeeded,
    r.failed,
    r.attempts,
    ...r.durations,
    r.durationMaxMs,
    r.lastSuccessAt,
    r.lastFailureAt,
  ];
}

/** Adds the rows to the roll-up, one statement each, in the order given (HourTally.rows's). */
export async function addToDeliveryHours(db: Db, rows: readonly HourRow[]): Promise<void> {
  if (rows.length === 0) return;
  const text = upsertSql(isPostgresDb(db));
  for (const r of rows) await db.executeQuery(CompiledQuery.raw(text, upsertValues(r)));
}

/** addToDeliveryHours inside a direct SQLite transaction (delivery-success.ts). */
export function addToDeliveryHoursNow(statements: DirectStatements, rows: readonly HourRow[]): void {
  for (const r of rows) statements.run(upsertSql(false), upsertValues(r));
}

/** Deletes an endpoint's hours that started before `before`; answers how many. */
export async function pruneDeliveryHours(
  db: Db,
  tenantId: number,
  endpointId: number,
  before: number,
): Promise<number> {
  const result = await db
    .deleteFrom('webhook_delivery_hours')
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where('hour_start', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The p-quantile (0 < p < 1) of durations counted in the histogram's buckets, as a histogram allows:
 * the bucket that holds the rank p × total, interpolated linearly within it (from its lower to its
 * upper bound, the latter lowered to the longest duration seen). Null for an empty histogram.
 */
export function histogramQuantile(counts: readonly number[], maxMs: number | null, p: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = p * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i]!;
    if (n > 0 && below + n >= rank) {
      const lower = i === 0 ? 0 : DURATION_BOUNDS_MS[i - 1]!;
      const bound = DURATION_BOUNDS_MS[i] ?? Number.POSITIVE_INFINITY;
      const top = maxMs === null ? bound : Math.min(bound, maxMs);
      const upper = Number.isFinite(top) ? Math.max(lower, top) : lower;
      return lower + (upper - lower) * ((rank - below) / n);
    }
    below += n;
  }
  return maxMs;
}
