// Alerts: raised by a reading that crosses a rule's threshold (with an `iot.alert.raised` event in
// the same transaction), listed newest first.
import type { Scope } from '../../platform/db/scope.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import type { ListAnswer } from '../../platform/resource/paging.js';
import { emitEvent, type OutboxDeps } from '../webhooks/outbox.js';
import { toAlertAnswer } from './alert.presenter.js';
import { insertAlert, listAlerts } from './alert.repository.js';
import type { DeviceRow } from './device.repository.js';
import type { RuleRow } from './rule.repository.js';
import { renderAlertMessage } from './thresholds.js';

/** A crossing found by the ingestion: the rule, the device and the reading that crossed. */
export interface RaisedAlert {
  rule: RuleRow;
  device: DeviceRow;
  reading: { metric: string; value: number; recordedAt: number };
}

export async function listAlertAnswers(
  ctx: RequestContext,
  query: PageQuery & { device_id?: number | undefined },
): Promise<ListAnswer> {
  const { rows, total, hasNext } = await listAlerts(ctx.scope, { deviceId: query.device_id }, query);
  return { items: rows.map(toAlertAnswer), total, hasNext };
}

/** Stores the alert and raises `iot.alert.raised` in the caller's transaction; answers its id. */
export async function raiseAlert(
  deps: OutboxDeps,
  tx: Scope,
  alert: RaisedAlert,
  parcelIds: number[],
  now: number,
): Promise<number> {
  const { rule, device, reading } = alert;
  const message = renderAlertMessage(rule.message, {
    device_code: device.code,
    device_name: device.name,
    metric: reading.metric,
    value: reading.value,
    threshold: rule.threshold,
    operator: rule.operator,
    severity: rule.severity,
  });
  const alertId = await insertAlert(tx, {
    rule_id: rule.id,
    device_id: device.id,
    metric: reading.metric,
    value: reading.value,
    threshold: rule.threshold,
    operator: rule.operator,
    severity: rule.severity,
    message,
    recorded_at: reading.recordedAt,
    created_at: now,
  });
  await emitEvent(deps, tx, 'iot.alert.raised', {
    alert_id: alertId,
    device_id: device.id,
    device_code: device.code,
    zone_id: device.zone_id,
    parcel_ids: parcelIds,
    metric: reading.metric,
    value: reading.value,
    threshold: rule.threshold,
    severity: rule.severity,
    message,
    rule_id: rule.id,
    recorded_at: new Date(reading.recordedAt).toISOString(),
  });
  return alertId;
}
