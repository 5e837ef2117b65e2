// Reading statements: a batch in, a device's readings out.
import { CompiledQuery, type Selectable } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import { insertScoped, type Scope, selectScoped } from '../../platform/db/scope.js';
import type { IotDevicesTable } from '../../platform/db/tables/iot.js';
import type { AlertInsert, StoredAlert } from './alert.repository.js';
import { markHeard } from './device.repository.js';
import {
  addToRollups,
  type Bucket,
  bucketArrays,
  rollUp,
  upsertFromArrays,
} from './reading-rollup.repository.js';

export interface Page {
  offset: number;
  limit: number;
}

export interface ReadingInsert {
  device_id: number;
  metric: string;
  value: number;
  recorded_at: number;
  received_at: number;
}

/** Inserts readings in chunks that stay under both dialects' parameter limits; answers their ids. */
export async function insertReadings(scope: Scope, readings: readonly ReadingInsert[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < readings.length; i += 500) {
    const rows = await insertScoped(scope, 'iot_readings', readings.slice(i, i + 500))
      .returning('id')
      .execute();
    ids.push(...rows.map((r) => Number(r.id)));
  }
  return ids;
}

const LEVELS: readonly Bucket[] = ['1m', '1h', '1d'];

/** Every device found is locked, live, online or never heard from, and no rule is aimed at it. */
const GUARD = '(select ok from go)';

/**
 * The whole of a batch as one statement (see storeReadingsAtOnce). $1 the tenant, $2 the devices'
 * codes, $3 the time received, $4-$7 the readings as arrays, then seven arrays per roll-up level.
 */
const AT_ONCE_SQL =
  'with found as (select d.*, exists (select 1 from iot_rules r where r.tenant_id = d.tenant_id ' +
  'and r.deleted_at is null and (r.device_id = d.id or r.zone_id = d.zone_id)) as ruled ' +
  'from iot_devices d where d.tenant_id = $1::integer and d.code = any($2::text[]) ' +
  'and d.deleted_at is null order by d.id for no key update), ' +
  'go as (select coalesce(bool_and(not ruled and (is_online = 1 or offline_at is null)), false) as ok ' +
  'from found), ' +
  'stored as (insert into iot_readings (tenant_id, device_id, metric, value, recorded_at, received_at) ' +
  'select $1, f.id, r.metric, r.value, r.recorded_at, $3::bigint ' +
  'from unnest($4::text[], $5::text[], $6::float8[], $7::bigint[]) with ordinality ' +
  'as r(code, metric, value, recorded_at, n) ' +
  `join found f on f.code = r.code where ${GUARD} order by r.n returning id), ` +
  LEVELS.map(
    (bucket, i) => `rollup_${bucket} as (${upsertFromArrays(bucket, 8 + i * 7, { guard: GUARD })}), `,
  ).join('') +
  'heard as (update iot_devices set last_heartbeat_at = case when last_heartbeat_at is null ' +
  'or last_heartbeat_at < $3 then $3 else last_heartbeat_at end, is_online = 1, offline_at = null ' +
  `where tenant_id = $1 and id in (select id from found) and ${GUARD}) ` +
  `select f.*, ${GUARD} as stored, array(select id from stored order by id) as ids from found f`;

/** A live device of a batch, as the one statement found it. */
export type FoundDevice = Selectable<IotDevicesTable> & {
  /** A live rule is aimed at the device or its zone. */
  ruled: boolean;
};

export interface ReadingIn {
  deviceCode: string;
  metric: string;
  value: number;
  recordedAt: number;
}

/**
 * PostgreSQL: a batch stored in one statement, one round trip that holds its devices' locks
 * (batches of one device take turns on them) instead of a transaction's dozen. It finds the live
 * devices with the readings' codes and locks them; then, when every one is online or never heard
 * from (no `iot.device.online` to raise) and no live rule is aimed at it or its zone (no alert
 * lifecycle to move), it stores their readings, adds them to the roll-ups and counts them as
 * heartbeats. Answers the devices found, and the ids of the stored readings in the batch's order
 * (readings of unknown devices left out), or no ids when it stored nothing and the caller must take
 * the transaction's way.
 */
export async function storeReadingsAtOnce(
  scope: Scope,
  readings: readonly ReadingIn[],
  receivedAt: number,
): Promise<{ devices: FoundDevice[]; ids: number[] | undefined }> {
  const codes = [...new Set(readings.map((r) => r.deviceCode))];
  if (codes.length === 0) return { devices: [], ids: undefined };
  // The roll-ups are summed here, as on SQLite; a device is its code's position until the statement.
  const position = new Map(codes.map((code, i) => [code, i]));
  const rolled = readings.map((r) => ({
    device_id: position.get(r.deviceCode)!,
    metric: r.metric,
    value: r.value,
    recorded_at: r.recordedAt,
  }));
  const parameters: unknown[] = [
    scope.tenantId,
    codes,
    receivedAt,
    readings.map((r) => r.deviceCode),
    readings.map((r) => r.metric),
    readings.map((r) => r.value),
    readings.map((r) => r.recordedAt),
  ];
  for (const bucket of LEVELS) parameters.push(...bucketArrays(rollUp(rolled, bucket), (i) => codes[i]));
  const result = await scope.db.executeQuery<FoundDevice & { stored: boolean; ids: (string | number)[] }>(
    CompiledQuery.raw(AT_ONCE_SQL, parameters),
  );
  const devices = result.rows.map(({ stored: _, ids: __, ...device }) => device);
  const first = result.rows[0];
  return { devices, ids: first?.stored ? first.ids.map(Number) : undefined };
}

/**
 * PostgreSQL: the readings of devices the transaction has locked, stored with their roll-ups and
 * heartbeats in one statement, which also answers the devices' parcels (an alert's or an
 * `iot.device.online`'s data may need them). $1 the tenant, $2-$5 the readings as arrays, $6 the
 * time received (and heard from), seven arrays per roll-up level from $7, then the devices; with
 * new alerts ten arrays of their columns (ALERT_COLUMNS), then with resolved alerts two arrays
 * (their ids and when).
 */
const DEVICES_PARAM = `$${7 + LEVELS.length * 7}::integer[]`;
/** The first parameter of the alerts' writes (heardSql): raised ones', then resolved ones'. */
const ALERTS_FROM = 8 + LEVELS.length * 7;
const ALERT_COLUMNS = [
  ['rule_id', 'integer'],
  ['device_id', 'integer'],
  ['metric', 'text'],
  ['value', 'float8'],
  ['threshold', 'float8'],
  ['operator', 'text'],
  ['severity', 'text'],
  ['message', 'text'],
  ['recorded_at', 'bigint'],
  ['created_at', 'bigint'],
] as const satisfies readonly (readonly [keyof AlertInsert, string])[];

/**
 * The statement of storeHeardReadings, with the batch's new alerts stored too when `raised` (ten
 * arrays, ALERT_COLUMNS: their ids answered in order) and alerts resolved when `resolved` (two
 * arrays, the ids and when: the rows answered as resolved, those that were still active).
 */
function heardSql(raised: boolean, resolved: boolean): string {
  const names = ALERT_COLUMNS.map(([name]) => name).join(', ');
  const resolvedFrom = ALERTS_FROM + (raised ? ALERT_COLUMNS.length : 0);
  return (
    'with stored as (insert into iot_readings (tenant_id, device_id, metric, value, recorded_at, received_at) ' +
    'select $1, r.device_id, r.metric, r.value, r.recorded_at, $6::bigint ' +
    'from unnest($2::integer[], $3::text[], $4::float8[], $5::bigint[]) with ordinality ' +
    'as r(device_id, metric, value, recorded_at, n) order by r.n returning id), ' +
    LEVELS.map((bucket, i) => `rollup_${bucket} as (${upsertFromArrays(bucket, 7 + i * 7)}), `).join('') +
    (raised
      ? `raised as (insert into iot_alerts (tenant_id, ${names}) select $1, ${names} from unnest(` +
        ALERT_COLUMNS.map(([, type], i) => `$${ALERTS_FROM + i}::${type}[]`).join(', ') +
        `) with ordinality as a(${names}, n) order by a.n returning id), `
      : '') +
    (resolved
      ? "resolved as (update iot_alerts a set status = 'resolved', resolved_at = c.at " +
        `from unnest($${resolvedFrom}::integer[], $${resolvedFrom + 1}::bigint[]) as c(id, at) ` +
        "where a.tenant_id = $1 and a.id = c.id and a.status = 'active' returning a.*), "
      : '') +
    'heard as (update iot_devices set last_heartbeat_at = case when last_heartbeat_at is null ' +
    'or last_heartbeat_at < $6 then $6 else last_heartbeat_at end, is_online = 1, offline_at = null ' +
    `where tenant_id = $1 and id = any(${DEVICES_PARAM}) and deleted_at is null) ` +
    'select array(select id from stored order by id) as ids, ' +
    (raised ? 'array(select id from raised order by id) as alert_ids, ' : '') +
    (resolved ? "(select coalesce(json_agg(resolved), '[]') from resolved) as resolved, " : '') +
    '(select coalesce(json_agg(json_build_array(p.device_id, p.parcel_id) order by p.device_id, p.parcel_id), ' +
    `'[]') from iot_device_parcels p where p.tenant_id = $1 and p.device_id = any(${DEVICES_PARAM})) as parcels`
  );
}
/** heardSql's four texts, by whether they raise and whether they resolve. */
const HEARD_SQL = [false, true].map((raised) => [false, true].map((resolved) => heardSql(raised, resolved)));

/**
 * The alert writes a batch makes in its readings' statement (PostgreSQL): its new alerts, and
 * alerts active before it that it resolves (each at most once), when it can write them before its
 * other alert writes (alertsFirst, alert-lifecycle.ts).
 */
export interface AlertsFirst {
  raised: readonly AlertInsert[];
  resolved: readonly { id: number; at: number }[];
}

/**
 * The accepted readings of a batch whose devices the transaction has locked (and read): stored,
 * added to the roll-ups, and counted as the devices' heartbeats (markHeard). Answers the readings'
 * ids in the batch's order, and on PostgreSQL, where it is all one statement, the devices' parcels;
 * there it also makes `alerts` (the new ones' ids answered in order, the resolved ones' rows by
 * id, of those that were still active). On SQLite `alerts` are left to the caller.
 */
export async function storeHeardReadings(
  scope: Scope,
  rows: readonly ReadingInsert[],
  deviceIds: readonly number[],
  now: number,
  alerts: AlertsFirst = { raised: [], resolved: [] },
): Promise<{
  ids: number[];
  parcels?: Map<number, number[]>;
  alertIds?: number[];
  resolved?: Map<number, StoredAlert>;
}> {
  if (!isPostgresDb(scope.db)) {
    const ids = await insertReadings(scope, rows);
    await addToRollups(scope, rows);
    await markHeard(scope, deviceIds, now);
    return { ids };
  }
  const parameters: unknown[] = [
    scope.tenantId,
    rows.map((r) => r.device_id),
    rows.map((r) => r.metric),
    rows.map((r) => r.value),
    rows.map((r) => r.recorded_at),
    now,
  ];
  for (const bucket of LEVELS) parameters.push(...bucketArrays(rollUp(rows, bucket), (id) => id));
  parameters.push(deviceIds);
  const { raised, resolved } = alerts;
  if (raised.length > 0) for (const [name] of ALERT_COLUMNS) parameters.push(raised.map((a) => a[name]));
  if (resolved.length > 0) parameters.push(...[resolved.map((r) => r.id), resolved.map((r) => r.at)]);
  const text = HEARD_SQL[raised.length > 0 ? 1 : 0]![resolved.length > 0 ? 1 : 0]!;
  const result = await scope.db.executeQuery<{
    ids: (string | number)[];
    alert_ids?: (string | number)[];
    resolved?: StoredAlert[];
    parcels: [number, number][];
  }>(CompiledQuery.raw(text, parameters));
  const { ids, alert_ids: alertIds, resolved: resolvedRows, parcels: pairs } = result.rows[0]!;
  const parcels = new Map<number, number[]>(deviceIds.map((id) => [id, []]));
  for (const [device, parcel] of pairs) parcels.get(device)?.push(parcel);
  return {
    ids: ids.map(Number),
    parcels,
    ...(alertIds ? { alertIds: alertIds.map(Number) } : {}),
    ...(resolvedRows ? { resolved: new Map(resolvedRows.map((row) => [row.id, row])) } : {}),
  };
}

export interface StoredReading {
  id: number;
  metric: string;
  value: number;
  recorded_at: number;
  received_at: number;
}

/** A device's readings, newest first. */
export async function listReadings(
  scope: Scope,
  filter: {
    deviceId: number;
    metric?: string | undefined;
    from?: number | undefined;
    to?: number | undefined;
  },
  page: Page,
): Promise<StoredReading[]> {
  let query = selectScoped(scope, 'iot_readings')
    .select(['id', 'metric', 'value', 'recorded_at', 'received_at'])
    .where('device_id', '=', filter.deviceId);
  if (filter.metric !== undefined) query = query.where('metric', '=', filter.metric);
  if (filter.from !== undefined) query = query.where('recorded_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('recorded_at', '<=', filter.to);
  const rows = await query
    .orderBy('recorded_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}
