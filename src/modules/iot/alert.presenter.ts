// An alert as the API answers it.
import { isoTime, isoTimeOrNull } from '../../platform/dates.js';
import type { AlertRow } from './alert.repository.js';

export function toAlertAnswer(row: AlertRow) {
  return {
    id: row.id,
    rule_id: row.rule_id,
    device_id: row.device_id,
    device_code: row.device_code,
    zone_id: row.zone_id,
    metric: row.metric,
    value: row.value,
    threshold: row.threshold,
    operator: row.operator,
    severity: row.severity,
    message: row.message,
    status: row.status,
    recorded_at: isoTime(row.recorded_at),
    created_at: isoTime(row.created_at),
    resolved_at: isoTimeOrNull(row.resolved_at),
    acknowledged_at: isoTimeOrNull(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by,
    acknowledged_by_name: row.acknowledged_by_name,
  };
}
