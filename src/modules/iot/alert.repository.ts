// Alert statements: one raised, one read, a page of them listed, one acknowledged, one resolved.
import { CompiledQuery, type Insertable, type Selectable } from 'kysely';
import { countUpTo, type PageOf, type PageRequest, pageOf } from '../../platform/db/records.js';
import { insertScoped, type Scope, selectScoped, updateScoped } from '../../platform/db/scope.js';
import type { AlertStatus, IotAlertsTable } from '../../platform/db/tables/iot.js';

/** An alert's own row, as a write answers it. */
export type StoredAlert = Selectable<IotAlertsTable>;

export type AlertRow = StoredAlert & {
  device_code: string;
  zone_id: number | null;
  acknowledged_by_name: string | null;
};

export interface AlertFilter {
  deviceId?: number | undefined;
  status?: AlertStatus | undefined;
  severity?: string | undefined;
  /** true: only acknowledged alerts; false: only those nobody has acknowledged yet. */
  acknowledged?: boolean | undefined;
}

/** A new alert's row: what ingestion stores (alert.service.ts's raisedAlertRow). */
export type AlertInsert = Required<
  Pick<
    Insertable<IotAlertsTable>,
    | 'rule_id'
    | 'device_id'
    | 'metric'
    | 'value'
    | 'threshold'
    | 'operator'
    | 'severity'
    | 'message'
    | 'recorded_at'
    | 'created_at'
  >
>;

export async function insertAlert(scope: Scope, alert: AlertInsert): Promise<number> {
  const row = await insertScoped(scope, 'iot_alerts', alert).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The tenant's alerts matching the filter, without their device and acknowledging user yet. */
function filteredAlerts(scope: Scope, filter: AlertFilter) {
  let base = selectScoped(scope, 'iot_alerts');
  if (filter.deviceId !== undefined) base = base.where('iot_alerts.device_id', '=', filter.deviceId);
  if (filter.status !== undefined) base = base.where('iot_alerts.status', '=', filter.status);
  if (filter.severity !== undefined) base = base.where('iot_alerts.severity', '=', filter.severity);
  if (filter.acknowledged !== undefined) {
    base = base.where('iot_alerts.acknowledged_at', filter.acknowledged ? 'is not' : 'is', null);
  }
  return base;
}

/** Alerts with their device's code and zone and the name of the user who acknowledged them. */
function withDeviceAndUser(query: ReturnType<typeof filteredAlerts>) {
  return query
    .innerJoin('iot_devices', (join) =>
      join
        .onRef('iot_devices.tenant_id', '=', 'iot_alerts.tenant_id')
        .onRef('iot_devices.id', '=', 'iot_alerts.device_id'),
    )
    .leftJoin('users', (join) =>
      join
        .onRef('users.tenant_id', '=', 'iot_alerts.tenant_id')
        .onRef('users.id', '=', 'iot_alerts.acknowledged_by'),
    )
    .selectAll('iot_alerts')
    .select(['iot_devices.code as device_code', 'iot_devices.zone_id', 'users.name as acknowledged_by_name']);
}

/** Alerts, newest first; counted up to COUNT_LIMIT (a tenant raises alerts without end). */
export async function listAlerts(
  scope: Scope,
  filter: AlertFilter,
  page: PageRequest,
): Promise<PageOf<AlertRow>> {
  const base = filteredAlerts(scope, filter);
  return pageOf(
    page,
    (limit, offset) =>
      withDeviceAndUser(base).orderBy('iot_alerts.id', 'desc').limit(limit).offset(offset).execute(),
    () => countUpTo(scope.db, base.select('iot_alerts.id')),
  );
}

export async function findAlert(scope: Scope, id: number): Promise<AlertRow | undefined> {
  return withDeviceAndUser(filteredAlerts(scope, {}).where('iot_alerts.id', '=', id)).executeTakeFirst();
}

/** Marks an alert acknowledged by the user, unless someone already did: the first one stays. */
export async function acknowledgeAlertOnce(
  scope: Scope,
  id: number,
  userId: number,
  now: number,
): Promise<void> {
  await updateScoped(scope, 'iot_alerts')
    .set({ acknowledged_at: now, acknowledged_by: userId })
    .where('id', '=', id)
    .where('acknowledged_at', 'is', null)
    .execute();
}

/**
 * Marks an active alert resolved at the time of the reading that cleared it; answers the alert as
 * it now is, or undefined when it was not active (resolved already, or not the tenant's).
 */
export async function resolveActiveAlert(
  scope: Scope,
  id: number,
  resolvedAt: number,
): Promise<StoredAlert | undefined> {
  // The resolved row comes back from the update itself: no second read.
  return updateScoped(scope, 'iot_alerts')
    .set({ status: 'resolved', resolved_at: resolvedAt })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirst();
}

/**
 * PostgreSQL: resolves the alerts of `resolved` that are still active, each at its time, in one
 * statement; answers their rows as resolved, by id.
 */
export async function resolveActiveAlerts(
  scope: Scope,
  resolved: readonly { id: number; at: number }[],
): Promise<Map<number, StoredAlert>> {
  const { rows } = await scope.db.executeQuery<StoredAlert>(
    CompiledQuery.raw(RESOLVE_ACTIVE_SQL, [
      scope.tenantId,
      resolved.map((r) => r.id),
      resolved.map((r) => r.at),
    ]),
  );
  return new Map(rows.map((row) => [row.id, row]));
}

const RESOLVE_ACTIVE_SQL =
  "update iot_alerts a set status = 'resolved', resolved_at = c.at " +
  'from unnest($2::integer[], $3::bigint[]) as c(id, at) ' +
  "where a.tenant_id = $1 and a.id = c.id and a.status = 'active' returning a.*";

/**
 * The newest active alert of a rule on a device: for rule states written before they kept the
 * active alert's id.
 */
export async function findActiveAlertId(
  scope: Scope,
  ruleId: number,
  deviceId: number,
): Promise<number | undefined> {
  const row = await selectScoped(scope, 'iot_alerts')
    .select('id')
    .where('rule_id', '=', ruleId)
    .where('device_id', '=', deviceId)
    .where('status', '=', 'active')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}
