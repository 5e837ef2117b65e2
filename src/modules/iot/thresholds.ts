// Threshold rules and their alert lifecycle (pending, active, resolved): pure logic, no I/O.

export const OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;
export type Operator = (typeof OPERATORS)[number];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Metric names: lower-case letters, digits, `_` and `.` (temperature, soil_moisture, air.humidity). */
export const METRIC_PATTERN = /^[a-z0-9_.]{1,64}$/;

const SYMBOLS: Record<Operator, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

export function operatorSymbol(operator: Operator): string {
  return SYMBOLS[operator];
}

/** True when the value is beyond the threshold (on the alerting side). */
export function isBreach(value: number, operator: Operator, threshold: number): boolean {
  switch (operator) {
    case 'gt':
      return value > threshold;
    case 'gte':
      return value >= threshold;
    case 'lt':
      return value < threshold;
    case 'lte':
      return value <= threshold;
  }
}

/**
 * True when the value is back past the clear threshold: on the normal side of it, strictly so for
 * the inclusive operators. That is "no longer a breach" with the clear threshold in the
 * threshold's place: for gt, value <= clear; gte, value < clear; lt, value >= clear; lte, value > clear.
 */
export function isCleared(value: number, operator: Operator, clearThreshold: number): boolean {
  return !isBreach(value, operator, clearThreshold);
}

/**
 * Whether a clear threshold lies on the normal side of the threshold (or on it): at most the
 * threshold for gt and gte, at least the threshold for lt and lte.
 */
export function clearThresholdFits(operator: Operator, threshold: number, clearThreshold: number): boolean {
  return operator === 'gt' || operator === 'gte' ? clearThreshold <= threshold : clearThreshold >= threshold;
}

export interface RuleCondition {
  operator: Operator;
  threshold: number;
  /** Where an active alert resolves; null: the threshold itself. */
  clearThreshold?: number | null | undefined;
  /** How long (ms) the value must stay beyond the threshold before an alert is raised; 0: at once. */
  minDurationMs?: number | undefined;
}

export interface RuleState {
  /** An alert is active for this rule and device: raised and not yet resolved. */
  breached: boolean;
  /** recorded_at (epoch ms) of the reading that last set the state; null before the first one. */
  lastRecordedAt: number | null;
  /** recorded_at of the first reading of a breach not yet long enough to raise; null otherwise. */
  pendingSince: number | null;
  /** The active alert's id, kept for the caller (null when none, or not known yet). */
  activeAlertId: number | null;
}

export const INITIAL_STATE: RuleState = {
  breached: false,
  lastRecordedAt: null,
  pendingSince: null,
  activeAlertId: null,
};

export interface StepResult {
  state: RuleState;
  /** The breach lasted long enough (or needs no time): raise one alert. */
  raise: boolean;
  /** The value is back past the clear threshold: resolve the active alert. */
  resolve: boolean;
}

/**
 * One reading through a rule's state.
 * - No active alert: a reading beyond the threshold starts a breach (or continues one); the alert is
 *   raised by the first reading of the breach that comes at least min_duration after its start
 *   (at once when that is 0). Any reading not beyond the threshold cancels a pending breach.
 * - Active alert: readings beyond the threshold, or between it and the clear threshold, change
 *   nothing (hysteresis); a reading past the clear threshold resolves the alert and re-arms the rule.
 * A reading older than the one that set the state is stored but does not move the state; one with
 * the same time counts as in order.
 */
export function stepRuleState(
  state: RuleState,
  reading: { value: number; recordedAt: number },
  rule: RuleCondition,
): StepResult {
  if (state.lastRecordedAt !== null && reading.recordedAt < state.lastRecordedAt)
    return { state, raise: false, resolve: false };
  const at = reading.recordedAt;
  if (state.breached) {
    const clear = rule.clearThreshold ?? rule.threshold;
    if (isCleared(reading.value, rule.operator, clear)) {
      return { state: { ...INITIAL_STATE, lastRecordedAt: at }, raise: false, resolve: true };
    }
    return { state: { ...state, lastRecordedAt: at }, raise: false, resolve: false };
  }
  if (!isBreach(reading.value, rule.operator, rule.threshold)) {
    return { state: { ...INITIAL_STATE, lastRecordedAt: at }, raise: false, resolve: false };
  }
  const since = state.pendingSince ?? at;
  if (at - since >= (rule.minDurationMs ?? 0)) {
    return {
      state: { breached: true, lastRecordedAt: at, pendingSince: null, activeAlertId: null },
      raise: true,
      resolve: false,
    };
  }
  return { state: { ...state, lastRecordedAt: at, pendingSince: since }, raise: false, resolve: false };
}

export interface MessageValues {
  device_code: string;
  device_name: string;
  metric: string;
  value: number;
  threshold: number;
  operator: Operator;
  severity: Severity;
}

export const DEFAULT_MESSAGE_TEMPLATE = '{metric} on {device_code} is {value} ({operator} {threshold})';

/** Fills `{placeholder}`s of a rule's message template; unknown placeholders stay as written. */
export function renderAlertMessage(template: string | null, values: MessageValues): string {
  const text = template && template.trim() !== '' ? template : DEFAULT_MESSAGE_TEMPLATE;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (name === 'operator') return operatorSymbol(values.operator);
    return Object.hasOwn(values, name) ? String(values[name as keyof MessageValues]) : whole;
  });
}
