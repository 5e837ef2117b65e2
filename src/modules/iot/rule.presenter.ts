// A threshold rule as the API answers it.
import { isoTime } from '../../platform/dates.js';
import type { RuleRow } from './rule.repository.js';
import type { Operator, Severity } from './thresholds.js';

export interface RuleAnswer {
  id: number;
  device_id: number | null;
  zone_id: number | null;
  metric: string;
  operator: Operator;
  threshold: number;
  severity: Severity;
  message: string | null;
  clear_threshold: number | null;
  min_duration_seconds: number;
  created_at: string;
  updated_at: string;
}

export function toRuleAnswer(row: RuleRow): RuleAnswer {
  return {
    id: row.id,
    device_id: row.device_id,
    zone_id: row.zone_id,
    metric: row.metric,
    operator: row.operator,
    threshold: row.threshold,
    severity: row.severity,
    message: row.message,
    clear_threshold: row.clear_threshold,
    min_duration_seconds: row.min_duration_seconds,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}
