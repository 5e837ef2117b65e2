// Chart reads as the readings pile up: a device's series (`/readings/series`) with 100 k and 10 M
// readings stored in the tenant, each against the same read at the first scale, in one run.
//
// Every device reports one `temperature` reading a minute. The first scale is 10 devices with
// 10,000 readings each (about a week); the last is 100 devices with 100,000 each (about 69 days):
// the charted device's last day and last week hold the same readings at every scale, only the rest
// of the tenant's history grows around them. The roll-ups are built from the raw readings as the
// migration that introduced them did; ingestion keeps them the same way (src/modules/iot).
import { type Kysely, sql } from 'kysely';
import { bulkWorkTimeouts, isPostgresDb, openDatabase } from '../src/platform/db/database.js';
import type { Database, DialectName } from '../src/platform/db/types.js';
import type { Figure, Settings } from './figures.js';
import { deploy, login, tenantIds } from './lib/furrow.js';
import { load } from './lib/load.js';
import { analyzeLikeAutovacuum } from './lib/seed.js';
import { cpuSeconds, ownCpuSeconds, postgresCpuSeconds } from './lib/system.js';

const CONNECTIONS = 10;
const MINUTE = 60_000;
const BATCH = 200_000;

interface Scale {
  devices: number;
  perDevice: number;
}

const READS = [
  { name: 'device series, last 24 h by the minute (1,440 points)', query: 'bucket=1m', span: 86_400_000 },
  { name: 'device series, last 7 days by the hour (168 points)', query: 'bucket=1h', span: 7 * 86_400_000 },
];

const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000} M` : `${n / 1000} k`);

/** Integers from `start` to `end - 1` as a FROM item s(i). */
function series(db: Kysely<Database>, start: number, end: number) {
  return isPostgresDb(db)
    ? sql`generate_series(${sql.lit(start)}, ${sql.lit(end - 1)}) as s(i)`
    : sql`(with recursive s(i) as (select ${sql.lit(start)} union all select i + 1 from s where i < ${sql.lit(end - 1)})
           select i from s) as s`;
}

/**
 * Devices `from`..`to - 1` with `perDevice` readings each ending at `end` (one a minute), and their
 * roll-ups. Answers the ids of the devices made, in order.
 */
async function seedReadings(
  db: Kysely<Database>,
  tenantId: number,
  from: number,
  to: number,
  perDevice: number,
  end: number,
): Promise<number[]> {
  const ids: number[] = [];
  for (let d = from; d < to; d++) {
    const row = await db
      .insertInto('iot_devices')
      .values({
        tenant_id: tenantId,
        code: `bench-${d}`,
        name: `Bench sensor ${d}`,
        zone_id: null,
        heartbeat_timeout_seconds: 86_400 * 365,
        last_heartbeat_at: end,
        is_online: 1,
        offline_at: null,
        dev_eui: null,
        created_at: end,
        updated_at: end,
        deleted_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(row.id);
  }
  const first = ids[0]!;
  const count = ids.length * perDevice;
  const i = isPostgresDb(db) ? sql`i::bigint` : sql`i`;
  // Reading i belongs to device first + i / perDevice and is (perDevice - i % perDevice) minutes old;
  // the value wanders between 15 and 35.
  for (let start = 0; start < count; start += BATCH) {
    await sql`
      insert into iot_readings (tenant_id, device_id, metric, value, recorded_at, received_at)
      select ${tenantId}, ${sql.lit(first)} + ${i} / ${sql.lit(perDevice)}, 'temperature',
             25 + ((${i} * 7919) % 2000) / 100.0 - 10,
             ${sql.lit(end)} - (${sql.lit(perDevice)} - ${i} % ${sql.lit(perDevice)}) * ${sql.lit(MINUTE)},
             ${sql.lit(end)}
      from ${series(db, start, Math.min(count, start + BATCH))}`.execute(db);
  }
  for (const [table, size] of [
    ['iot_readings_1m', MINUTE],
    ['iot_readings_1h', 3_600_000],
    ['iot_readings_1d', 86_400_000],
  ] as const) {
    const bucket = sql.raw(`recorded_at - ((recorded_at % ${size}) + ${size}) % ${size}`);
    await sql`
      insert into ${sql.table(table)} (tenant_id, device_id, metric, bucket_start, min, max, sum, count)
      select tenant_id, device_id, metric, ${bucket}, min(value), max(value), sum(value), count(*)
      from iot_readings
      where tenant_id = ${tenantId} and device_id >= ${first} and device_id <= ${ids.at(-1)!}
      group by tenant_id, device_id, metric, ${bucket}`.execute(db);
  }
  return ids;
}

export async function benchSeries(dialect: DialectName, settings: Settings): Promise<Figure[]> {
  const reads = READS.filter((r) => settings.wanted(r.name) || settings.wanted('series'));
  if (reads.length === 0) return [];
  const scales: Scale[] = settings.quick
    ? [
        { devices: 10, perDevice: 10_000 },
        { devices: 100, perDevice: 10_000 },
      ]
    : [
        { devices: 10, perDevice: 10_000 },
        { devices: 100, perDevice: 100_000 },
      ];
  const figures: Figure[] = [];
  const deployment = await deploy(dialect);
  try {
    const mine = await tenantIds(deployment.databaseUrl);
    const server = await deployment.api();
    const api = await login(server.url);
    const cpu = {
      furrow: () => cpuSeconds(server.child.pid!),
      'load generator': ownCpuSeconds,
      ...(dialect === 'postgres' ? { postgres: postgresCpuSeconds } : {}),
    };
    const handle = openDatabase(deployment.databaseUrl, { maxConnections: 2, timeouts: bulkWorkTimeouts() });
    const end = Date.now() - MINUTE;
    const baseline = new Map<string, number>();
    let devices = 0;
    try {
      for (const scale of scales) {
        const started = performance.now();
        // Each scale is made fresh: the devices of the scale before are deleted with their readings.
        if (devices > 0) {
          for (const table of [
            'iot_readings_1m',
            'iot_readings_1h',
            'iot_readings_1d',
            'iot_readings',
          ] as const)
            await handle.db.deleteFrom(table).where('tenant_id', '=', mine.tenantId).execute();
          await handle.db.deleteFrom('iot_devices').where('code', 'like', 'bench-%').execute();
        }
        const ids = await seedReadings(handle.db, mine.tenantId, 0, scale.devices, scale.perDevice, end);
        devices = scale.devices;
        await analyzeLikeAutovacuum(handle.db);
        const total = scale.devices * scale.perDevice;
        process.stderr.write(
          `bench: ${dialect} series: ${label(total)} readings in ${Math.round((performance.now() - started) / 1000)} s\n`,
        );
        // The charted device is in the middle of the tenant's devices.
        const device = ids[Math.floor(ids.length / 2)]!;
        for (const read of reads) {
          const from = new Date(end - read.span).toISOString();
          const to = new Date(end).toISOString();
          const path = `/api/iot/devices/${device}/readings/series?metric=temperature&${read.query}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
          // The client's kept-alive connection may have been closed by the server during the seeding.
          const sample = await api
            .call('GET', path)
            .catch(() => api.call('GET', path))
            .catch((err: Error) => {
              throw new Error(`${path}: ${err.message}; the server said:\n${server.output().slice(-3000)}`);
            });
          const points = sample.json as unknown[] | null;
          if (sample.status !== 200 || !Array.isArray(points) || points.length === 0) {
            throw new Error(`${path}: ${sample.status} ${sample.text.slice(0, 300)}`);
          }
          const run = await load({
            urls: [`${server.url}${path}`],
            headers: { authorization: `Bearer ${api.token}` },
            connections: CONNECTIONS,
            durationS: settings.durationS,
            warmupS: settings.warmupS,
            cpu,
          });
          const first = scales[0]!;
          const atFirst = scale === first;
          if (atFirst) baseline.set(read.name, run.rps);
          const base = baseline.get(read.name) ?? run.rps;
          figures.push({
            section: 'series',
            dialect,
            name: `${read.name} at ${label(total)} readings`,
            value: run.rps,
            unit: 'req/s',
            p99Ms: run.p99Ms,
            ...(atFirst
              ? {}
              : {
                  baseline: { name: `at ${label(first.devices * first.perDevice)}`, value: base },
                  ratio: base / run.rps,
                  ...(total >= 10_000_000 ? { target: { slowdownAtMost: 2 } } : {}),
                }),
            cpu: run.cpu,
            note: `${points.length} points`,
          });
        }
      }
    } finally {
      await handle.close();
    }
  } finally {
    await deployment.close();
  }
  return figures;
}
