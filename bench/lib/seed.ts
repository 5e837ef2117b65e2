// Rows for the growth figures, written straight into the tables in large batches (the triggers of
// the database keep counts, spans and search indexes as they would for rows made through the API).
// Deterministic, so every scale holds the same shapes:
// - crop i is named "Rau cải <i % 97> lô <i / 20, six digits>": each "lô" matches exactly 20 crops,
//   whatever the number of rows; the first 20 crops are "Dưa hấu Long An <i>" instead, a name no
//   other crop shares at any scale,
//   whatever the number of rows, and its upper-case spelling tests case folding beyond ASCII;
// - task i starts TASKS_START + i × 7.2 min (200 a day, moving forward in time) and lasts 0 to 3 h:
//   a one-day range holds about 200 tasks at every scale, only the history behind it grows.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgresDb as isPostgres } from '../../src/platform/db/database.js';
import type { Database } from '../../src/platform/db/types.js';

export const TASKS_PER_DAY = 200;
export const TASKS_START = Date.UTC(2020, 0, 1);
const TASK_STEP_MS = 86_400_000 / TASKS_PER_DAY;
const BATCH = 50_000;

/**
 * The crop search that matches exactly 20 rows of a tenant at every scale. Its first trigrams
 * ("lô ", "ô 0", " 00") are in every crop's name: the worst case of a trigram index.
 */
export const SEARCH_TERM = 'LÔ 000123';
/** A search for a name only 20 crops have (their trigrams are in no other crop), at every scale. */
export const SELECTIVE_TERM = 'HẤU LONG';

/** The day in the middle of the first `count` tasks, as YYYY-MM-DD. */
export function middleDay(count: number): string {
  const ms = TASKS_START + Math.floor(count / 2) * TASK_STEP_MS;
  return new Date(ms).toISOString().slice(0, 10);
}

/** Integers i from `start` to `end - 1`, as a FROM item named s with the column i. */
function series(db: Kysely<Database>, start: number, end: number) {
  return isPostgres(db)
    ? sql`generate_series(${sql.lit(start)}, ${sql.lit(end - 1)}) as s(i)`
    : sql`(with recursive s(i) as (select ${sql.lit(start)} union all select i + 1 from s where i < ${sql.lit(end - 1)})
           select i from s) as s`;
}

/** An integer expression as text, zero-padded to `width` digits. */
function padded(db: Kysely<Database>, value: RawBuilder<unknown>, width: number) {
  return isPostgres(db)
    ? sql`lpad((${value})::text, ${sql.lit(width)}, '0')`
    : sql`printf(${sql.lit(`%0${width}d`)}, ${value})`;
}

/** Crops from index `from` (inclusive) to `to` (exclusive) for the tenant. */
export async function seedCrops(
  db: Kysely<Database>,
  tenantId: number,
  from: number,
  to: number,
): Promise<void> {
  for (let start = from; start < to; start += BATCH) {
    await sql`
      insert into crops (tenant_id, name, code, sku, price, status, created_at, updated_at)
      select ${tenantId},
             case when i < 20 then 'Dưa hấu Long An ' || i
                  else 'Rau cải ' || (i % 97) || ' lô ' || ${padded(db, sql`i / 20`, 6)} end,
             'C' || ${padded(db, sql`i`, 7)}, 'SKU-' || i, 1000 + i % 5000, 1, 1, 1
      from ${series(db, start, Math.min(to, start + BATCH))}`.execute(db);
  }
}

/** Diary tasks from index `from` (inclusive) to `to` (exclusive) for the tenant. */
export async function seedTasks(
  db: Kysely<Database>,
  tenantId: number,
  userId: number,
  from: number,
  to: number,
): Promise<void> {
  // A quarter of the tasks have no end; the others last 1 to 3 hours. Epoch milliseconds need
  // 64-bit arithmetic on PostgreSQL.
  const i = isPostgres(db) ? sql`i::bigint` : sql`i`;
  const startAt = sql`${sql.lit(TASKS_START)} + ${i} * ${sql.lit(TASK_STEP_MS)}`;
  const endAt = sql`case when i % 4 = 0 then null else ${startAt} + (${i} % 4) * 3600000 end`;
  for (let start = from; start < to; start += BATCH) {
    await sql`
      insert into diary_tasks (tenant_id, name, start_at, end_at, user_id, created_at, updated_at)
      select ${tenantId}, 'Công việc ' || i, ${startAt}, ${endAt}, ${userId}, 1, 1
      from ${series(db, start, Math.min(to, start + BATCH))}`.execute(db);
  }
}

/**
 * PostgreSQL: what autovacuum does soon after a bulk load (its insert threshold): planner statistics
 * and the visibility map that lets index-only scans skip the table. SQLite gets nothing the service
 * does not do itself.
 */
export async function analyzeLikeAutovacuum(db: Kysely<Database>): Promise<void> {
  if (isPostgres(db)) await sql`vacuum analyze`.execute(db);
}
