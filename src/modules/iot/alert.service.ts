// Alerts: raised by a reading that crosses a rule's threshold (with an `iot.alert.raised` event in
// the same transaction), resolved by a reading back past the rule's clear threshold (with an
// `iot.alert.resolved` event), listed newest first, acknowledged by a user of the tenant.
import type { Scope } from '../../platform/db/scope.js';
import type { AlertStatus } from '../../platform/db/tables/iot.js';
import { notFound } from '../../platform/errors.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import type { ListAnswer } from '../../platform/resource/paging.js';
import { emitEvent, type OutboxDeps } from '../webhooks/outbox.js';
import { toAlertAnswer } from './alert.presenter.js';
import {
  type AlertInsert,
  acknowledgeAlertOnce,
  findActiveAlertId,
  findAlert,
  insertAlert,
  listAlerts,
  resolveActiveAlert,
  type StoredAlert,
} from './alert.repository.js';
import type { DeviceRow } from './device.repository.js';
import type { RuleRow } from './rule.repository.js';
import { renderAlertMessage } from './thresholds.js';

/** A crossing found by the ingestion: the rule, the device and the reading that crossed. */
export interface RaisedAlert {
  rule: RuleRow;
  device: DeviceRow;
  reading: { metric: string; value: number; recordedAt: number };
}

export interface AlertListQuery extends PageQuery {
  device_id?: number | undefined;
  status?: AlertStatus | undefined;
  severity?: string | undefined;
  acknowledged?: boolean | undefined;
}

export async function listAlertAnswers(ctx: RequestContext, query: AlertListQuery): Promise<ListAnswer> {
  const filter = {
    deviceId: query.device_id,
    status: query.status,
    severity: query.severity,
    acknowledged: query.acknowledged,
  };
  const { rows, total, hasNext } = await listAlerts(ctx.scope, filter, query);
  return { items: rows.map(toAlertAnswer), total, hasNext };
}

export async function getAlert(ctx: Pick<RequestContext, 'scope'>, id: number) {
  const row = await findAlert(ctx.scope, id);
  if (!row) throw notFound();
  return toAlertAnswer(row);
}

/**
 * Acknowledges an alert as the acting user, now. Acknowledging again, by anyone, keeps the first
 * acknowledgement and answers the alert as it is; a resolved alert can still be acknowledged.
 */
export async function acknowledgeAlert(ctx: RequestContext, id: number) {
  await acknowledgeAlertOnce(ctx.scope, id, ctx.user.id, ctx.clock.now());
  return getAlert(ctx, id);
}

/** The row of a raised alert, as stored (its message rendered from the rule's). */
export function raisedAlertRow(alert: RaisedAlert, now: number): AlertInsert {
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
  return {
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
  };
}

/** Stores the alert and raises `iot.alert.raised` in the caller's transaction; answers its id. */
export async function raiseAlert(
  deps: OutboxDeps,
  tx: Scope,
  alert: RaisedAlert,
  parcelIds: number[],
  now: number,
): Promise<number> {
  const row = raisedAlertRow(alert, now);
  const alertId = await insertAlert(tx, row);
  await announceRaisedAlert(deps, tx, alert, row, alertId, parcelIds);
  return alertId;
}

/** Raises `iot.alert.raised` for an alert stored as `row` with the id `alertId`. */
export async function announceRaisedAlert(
  deps: OutboxDeps,
  tx: Scope,
  alert: RaisedAlert,
  row: AlertInsert,
  alertId: number,
  parcelIds: number[],
): Promise<void> {
  const { rule, device, reading } = alert;
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
    message: row.message,
    rule_id: rule.id,
    recorded_at: new Date(reading.recordedAt).toISOString(),
  });
}

/** A reading that cleared an active alert: the rule, the device, the reading, and the alert if known. */
export interface ClearedAlert {
  rule: RuleRow;
  device: DeviceRow;
  reading: { value: number; recordedAt: number };
  /** The active alert's id as the rule state kept it; null: the newest active one of this rule and device. */
  alertId: number | null;
}

/**
 * Resolves the active alert at the reading's time and raises `iot.alert.resolved` in the caller's
 * transaction. The payload is the raised one's (describing the alert as raised: its value,
 * threshold, message, recorded_at) plus the clear threshold, the value that cleared it and when.
 * Answers the alert's id, or null when there was no active alert to resolve.
 */
export async function resolveAlert(
  deps: OutboxDeps,
  tx: Scope,
  cleared: ClearedAlert,
  parcelIds: number[],
): Promise<number | null> {
  const { rule, device, reading } = cleared;
  const id = cleared.alertId ?? (await findActiveAlertId(tx, rule.id, device.id));
  if (id === undefined) return null;
  const alert = await resolveActiveAlert(tx, id, reading.recordedAt);
  return announceResolvedAlert(deps, tx, cleared, alert, parcelIds);
}

/**
 * Raises `iot.alert.resolved` for `alert` as its resolving update answered it (undefined: it was
 * not active, and nothing is raised); answers its id, or null.
 */
export async function announceResolvedAlert(
  deps: OutboxDeps,
  tx: Scope,
  cleared: ClearedAlert,
  alert: StoredAlert | undefined,
  parcelIds: number[],
): Promise<number | null> {
  if (!alert) return null;
  const { rule, device, reading } = cleared;
  await emitEvent(deps, tx, 'iot.alert.resolved', {
    alert_id: alert.id,
    device_id: device.id,
    device_code: device.code,
    zone_id: device.zone_id,
    parcel_ids: parcelIds,
    metric: alert.metric,
    value: alert.value,
    threshold: alert.threshold,
    severity: alert.severity,
    message: alert.message,
    rule_id: alert.rule_id,
    recorded_at: new Date(alert.recorded_at).toISOString(),
    clear_threshold: rule.clear_threshold ?? rule.threshold,
    resolved_value: reading.value,
    resolved_at: new Date(reading.recordedAt).toISOString(),
  });
  return alert.id;
}
