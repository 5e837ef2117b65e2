// Roll-ups of sensor readings for charts: per tenant, device, metric and bucket (1 minute, 1 hour,
// 1 day) the min, max, sum and count of the readings taken in it (avg = sum / count), kept as
// readings arrive. Raw readings and the 1-minute roll-up are pruned after IOT_RAW_RETENTION_DAYS;
// the hourly and daily roll-ups are kept forever. Readings stored before this migration are
// rolled up here once.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

const LEVELS = [
  ['iot_readings_1m', 60_000],
  ['iot_readings_1h', 3_600_000],
  ['iot_readings_1d', 86_400_000],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const double = isPostgres(db) ? 'double precision' : 'real';
  for (const [table, size] of LEVELS) {
    await db.schema
      .createTable(table)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('device_id', 'integer', (c) => c.notNull())
      .addColumn('metric', 'varchar(64)', (c) => c.notNull())
      .addColumn('bucket_start', 'bigint', (c) => c.notNull())
      .addColumn('min', double, (c) => c.notNull())
      .addColumn('max', double, (c) => c.notNull())
      .addColumn('sum', double, (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pkey`, ['tenant_id', 'device_id', 'metric', 'bucket_start'])
      .addForeignKeyConstraint(`${table}_device_fk`, ['tenant_id', 'device_id'], 'iot_devices', [
        'tenant_id',
        'id',
      ])
      .execute();
    // Floor division, also for instants before 1970 (% keeps the dividend's sign on both databases).
    const start = sql.raw(`recorded_at - ((recorded_at % ${size}) + ${size}) % ${size}`);
    await sql`
      insert into ${sql.table(table)} (tenant_id, device_id, metric, bucket_start, min, max, sum, count)
      select tenant_id, device_id, metric, ${start}, min(value), max(value), sum(value), count(*)
      from iot_readings group by tenant_id, device_id, metric, ${start}`.execute(db);
  }
  // The retention job finds the oldest minutes across tenants.
  await db.schema
    .createIndex('iot_readings_1m_bucket_idx')
    .on('iot_readings_1m')
    .column('bucket_start')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table] of LEVELS) await db.schema.dropTable(table).execute();
}
