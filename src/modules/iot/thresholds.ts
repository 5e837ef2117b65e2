// Threshold rules and their edge-triggered state: pure logic, no I/O.

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

export interface RuleState {
  breached: boolean;
  /** recorded_at (epoch ms) of the reading that last set the state; null before the first one. */
  lastRecordedAt: number | null;
}

export const INITIAL_STATE: RuleState = { breached: false, lastRecordedAt: null };

export interface StepResult {
  state: RuleState;
  /** The reading crossed the threshold from the normal side: raise one alert. */
  raise: boolean;
}

/**
 * One reading through a rule's state. An alert is raised only on the crossing from normal to
 * breached; staying beyond raises nothing; a reading back on the normal side re-arms the rule.
 * A reading older than the one that set the state is stored but does not move the state.
 */
export function stepRuleState(
  state: RuleState,
  reading: { value: number; recordedAt: number },
  rule: { operator: Operator; threshold: number },
): StepResult {
  if (state.lastRecordedAt !== null && reading.recordedAt < state.lastRecordedAt)
    return { state, raise: false };
  const breached = isBreach(reading.value, rule.operator, rule.threshold);
  return { state: { breached, lastRecordedAt: reading.recordedAt }, raise: breached && !state.breached };
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
