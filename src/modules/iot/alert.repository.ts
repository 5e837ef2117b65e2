// Alert statements: one raised, a page of them listed.
import type { Insertable, Selectable } from 'kysely';
import { countUpTo, type PageOf, type PageRequest, pageOf } from '../../platform/db/records.js';
import { insertScoped, type Scope, selectScoped } from '../../platform/db/scope.js';
import type { IotAlertsTable } from '../../platform/db/tables/iot.js';

export type AlertRow = Selectable<IotAlertsTable> & { device_code: string; zone_id: number | null };

export async function insertAlert(
  scope: Scope,
  alert: Omit<Insertable<IotAlertsTable>, 'id' | 'tenant_id'>,
): Promise<number> {
  const row = await insertScoped(scope, 'iot_alerts', alert).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Alerts, newest first; counted up to COUNT_LIMIT (a tenant raises alerts without end). */
export async function listAlerts(
  scope: Scope,
  filter: { deviceId?: number | undefined },
  page: PageRequest,
): Promise<PageOf<AlertRow>> {
  let base = selectScoped(scope, 'iot_alerts');
  if (filter.deviceId !== undefined) base = base.where('iot_alerts.device_id', '=', filter.deviceId);
  return pageOf(
    page,
    (limit, offset) =>
      base
        .innerJoin('iot_devices', (join) =>
          join
            .onRef('iot_devices.tenant_id', '=', 'iot_alerts.tenant_id')
            .onRef('iot_devices.id', '=', 'iot_alerts.device_id'),
        )
        .selectAll('iot_alerts')
        .select(['iot_devices.code as device_code', 'iot_devices.zone_id'])
        .orderBy('iot_alerts.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => countUpTo(scope.db, base.select('iot_alerts.id')),
  );
}
