// Threshold rules: each aims at one device or every device of a zone. A rule aimed at another metric,
// operator or target starts its alert state afresh; a new threshold, clear threshold, minimum
// duration, severity or text keeps it (an active alert then resolves by the new clear threshold).
import { lockLive } from '../../platform/db/records.js';
import { checkReferences } from '../../platform/db/references.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import { refOrNull } from '../../platform/resource/input.js';
import type { ListAnswer } from '../../platform/resource/paging.js';
import { type RuleAnswer, toRuleAnswer } from './rule.presenter.js';
import {
  findRule,
  insertRule,
  listRules,
  resetRuleStates,
  softDeleteRule,
  updateRule,
} from './rule.repository.js';
import { clearThresholdFits, METRIC_PATTERN, type Operator, type Severity } from './thresholds.js';

export interface RuleInput {
  device_id?: number | null | undefined;
  zone_id?: number | null | undefined;
  metric?: string | undefined;
  operator?: Operator | undefined;
  threshold?: number | undefined;
  severity?: Severity | undefined;
  message?: string | null | undefined;
  clear_threshold?: number | null | undefined;
  min_duration_seconds?: number | undefined;
}

/** The clear threshold must lie on the normal side of the threshold (or on it). */
function checkClearThreshold(rule: {
  operator: Operator;
  threshold: number;
  clear_threshold: number | null;
}) {
  if (rule.clear_threshold === null) return;
  if (clearThresholdFits(rule.operator, rule.threshold, rule.clear_threshold)) return;
  const atMost = rule.operator === 'gt' || rule.operator === 'gte';
  throw validationFailed([
    {
      field: 'clear_threshold',
      message: atMost ? 'iot.clear_at_most_threshold' : 'iot.clear_at_least_threshold',
      params: { threshold: rule.threshold, operator: rule.operator },
    },
  ]);
}

async function checkRuleTarget(
  scope: Scope,
  target: { device_id: number | null; zone_id: number | null },
  metric?: string,
) {
  const errors: FieldError[] = [];
  if (metric !== undefined && !METRIC_PATTERN.test(metric))
    errors.push({ field: 'metric', message: 'field.pattern' });
  if ((target.device_id === null) === (target.zone_id === null)) {
    errors.push({ field: target.device_id === null ? 'device_id' : 'zone_id', message: 'iot.rule_target' });
  }
  errors.push(
    ...(await checkReferences(scope, [
      { field: 'device_id', table: 'iot_devices', id: target.device_id },
      { field: 'zone_id', table: 'zones', id: target.zone_id },
    ])),
  );
  if (errors.length > 0) throw validationFailed(errors);
}

async function getRule(scope: Scope, id: number): Promise<RuleAnswer> {
  const row = await findRule(scope, id);
  if (!row) throw notFound();
  return toRuleAnswer(row);
}

async function listRuleAnswers(ctx: RequestContext, query: PageQuery): Promise<ListAnswer> {
  const { rows, total, hasNext } = await listRules(ctx.scope, query);
  return { items: rows.map(toRuleAnswer), total, hasNext };
}

async function createRule(
  ctx: RequestContext,
  input: RuleInput & { metric: string; operator: Operator; threshold: number },
): Promise<RuleAnswer> {
  const target = { device_id: refOrNull(input.device_id) ?? null, zone_id: refOrNull(input.zone_id) ?? null };
  await checkRuleTarget(ctx.scope, target, input.metric);
  const clearThreshold = input.clear_threshold ?? null;
  checkClearThreshold({
    operator: input.operator,
    threshold: input.threshold,
    clear_threshold: clearThreshold,
  });
  const id = await insertRule(
    ctx.scope,
    {
      ...target,
      metric: input.metric,
      operator: input.operator,
      threshold: input.threshold,
      severity: input.severity ?? 'warning',
      message: input.message ?? null,
      clear_threshold: clearThreshold,
      min_duration_seconds: input.min_duration_seconds ?? 0,
    },
    ctx.clock.now(),
  );
  return getRule(ctx.scope, id);
}

async function changeRule(ctx: RequestContext, id: number, input: RuleInput): Promise<RuleAnswer> {
  return inTransaction(ctx.scope, async (tx) => {
    const current = await findRule(tx, id);
    if (!current) throw notFound();
    // A rule aims at a device or a zone: naming one of them replaces the other.
    const target =
      input.device_id !== undefined || input.zone_id !== undefined
        ? { device_id: refOrNull(input.device_id) ?? null, zone_id: refOrNull(input.zone_id) ?? null }
        : { device_id: current.device_id, zone_id: current.zone_id };
    await checkRuleTarget(tx, target, input.metric);
    const patch = {
      ...target,
      ...(input.metric !== undefined ? { metric: input.metric } : {}),
      ...(input.operator !== undefined ? { operator: input.operator } : {}),
      ...(input.threshold !== undefined ? { threshold: input.threshold } : {}),
      ...(input.severity !== undefined ? { severity: input.severity } : {}),
      ...(input.message !== undefined ? { message: input.message } : {}),
      ...(input.clear_threshold !== undefined ? { clear_threshold: input.clear_threshold } : {}),
      ...(input.min_duration_seconds !== undefined
        ? { min_duration_seconds: input.min_duration_seconds }
        : {}),
    };
    checkClearThreshold({
      operator: patch.operator ?? current.operator,
      threshold: patch.threshold ?? current.threshold,
      clear_threshold: patch.clear_threshold !== undefined ? patch.clear_threshold : current.clear_threshold,
    });
    await updateRule(tx, id, patch, ctx.clock.now());
    // Another metric, operator or target is another watch: it starts from a clean state (alerts it
    // had active stay active; no reading of the new condition resolves them). A new threshold, clear
    // threshold, minimum duration, text or severity keeps the state: an active alert stays active
    // until a reading is past the new clear threshold, and a pending breach keeps its start.
    const watchChanged =
      target.device_id !== current.device_id ||
      target.zone_id !== current.zone_id ||
      (input.metric !== undefined && input.metric !== current.metric) ||
      (input.operator !== undefined && input.operator !== current.operator);
    if (watchChanged) await resetRuleStates(tx, id);
    return getRule(tx, id);
  });
}

/** A deleted rule resolves nothing: its active alerts stay active (and can be acknowledged). */
async function removeRule(ctx: RequestContext, id: number): Promise<void> {
  if (!(await softDeleteRule(ctx.scope, id, ctx.clock.now()))) throw notFound();
}

export const ruleService = {
  list: listRuleAnswers,
  get: (ctx: RequestContext, id: number) => getRule(ctx.scope, id),
  lock: (ctx: RequestContext, id: number) => lockLive(ctx.scope, 'iot_rules', id),
  create: createRule,
  update: changeRule,
  remove: removeRule,
};
