// An hourly roll-up of each endpoint's deliveries, for its stats: the delivery log keeps only the
// newest 50 finished deliveries, so a busy endpoint's week cannot be counted from it. Per tenant,
// endpoint and hour: deliveries that ended (succeeded, failed), attempts that started, a histogram
// of their durations, the longest one, and the last success and failure. The worker adds to it in
// the transaction that records attempts; it is pruned after 8 days. Filled here once from the
// deliveries and attempts already stored.
import { type Kysely, sql } from 'kysely';

const HOUR_MS = 3_600_000;
/** Upper bounds (ms, inclusive) of the histogram's buckets; `ms_over` holds the longer attempts. */
const BOUNDS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];
const BUCKETS = [...BOUNDS.map((b) => `ms_${b}`), 'ms_over'];
const COUNTS = ['succeeded', 'failed', 'attempts', ...BUCKETS];

export async function up(db: Kysely<any>): Promise<void> {
  let table = db.schema
    .createTable('webhook_delivery_hours')
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('endpoint_id', 'integer', (c) => c.notNull())
    .addColumn('hour_start', 'bigint', (c) => c.notNull());
  for (const column of COUNTS) table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
  await table
    .addColumn('duration_max_ms', 'integer')
    .addColumn('last_success_at', 'bigint')
    .addColumn('last_failure_at', 'bigint')
    .addPrimaryKeyConstraint('webhook_delivery_hours_pkey', ['tenant_id', 'endpoint_id', 'hour_start'])
    .addForeignKeyConstraint(
      'webhook_delivery_hours_endpoint_fk',
      ['tenant_id', 'endpoint_id'],
      'webhook_endpoints',
      ['tenant_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();

  // Floor division, also for instants before 1970 (% keeps the dividend's sign on both databases).
  const hour = (column: string) =>
    sql.raw(`${column} - ((${column} % ${HOUR_MS}) + ${HOUR_MS}) % ${HOUR_MS}`);
  const none = sql.raw(BUCKETS.map((b) => `0 as ${b}`).join(', '));
  const buckets = sql.raw(
    BUCKETS.map((b, i) => {
      const above = i === 0 ? [] : [`a.duration_ms > ${BOUNDS[i - 1]}`];
      const within = i < BOUNDS.length ? [`a.duration_ms <= ${BOUNDS[i]}`] : [];
      return `case when ${[...above, ...within].join(' and ')} then 1 else 0 end as ${b}`;
    }).join(', '),
  );
  const columns = sql.raw(
    [
      'tenant_id',
      'endpoint_id',
      'hour_start',
      ...COUNTS,
      'duration_max_ms',
      'last_success_at',
      'last_failure_at',
    ].join(', '),
  );
  const sums = sql.raw(COUNTS.map((c) => `sum(${c})`).join(', '));
  // Deliveries count in the hour they ended, attempts in the hour they started (as the worker adds them).
  await sql`
    insert into webhook_delivery_hours (${columns})
    select tenant_id, endpoint_id, hour_start, ${sums},
      max(duration_max_ms), max(last_success_at), max(last_failure_at)
    from (
      select d.tenant_id, d.endpoint_id, ${hour('d.finished_at')} as hour_start,
        case when d.status = 'succeeded' then 1 else 0 end as succeeded,
        case when d.status = 'failed' then 1 else 0 end as failed,
        0 as attempts, ${none}, cast(null as integer) as duration_max_ms,
        case when d.status = 'succeeded' then d.finished_at end as last_success_at,
        case when d.status = 'failed' then d.finished_at end as last_failure_at
      from webhook_deliveries d
      where d.status in ('succeeded', 'failed') and d.finished_at is not null
      union all
      select d.tenant_id, d.endpoint_id, ${hour('a.started_at')} as hour_start,
        0 as succeeded, 0 as failed, 1 as attempts, ${buckets}, a.duration_ms as duration_max_ms,
        cast(null as bigint) as last_success_at, cast(null as bigint) as last_failure_at
      from webhook_attempts a
      join webhook_deliveries d on d.tenant_id = a.tenant_id and d.id = a.delivery_id
    ) as rolled
    group by tenant_id, endpoint_id, hour_start`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_delivery_hours').execute();
}
