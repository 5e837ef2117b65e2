// Threshold rules: each aims at one device or every device of a zone. A changed condition starts
// the rule's alert state afresh.
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
import { METRIC_PATTERN, type Operator, type Severity } from './thresholds.js';

export interface RuleInput {
  device_id?: number | null | undefined;
  zone_id?: number | null | undefined;
  metric?: string | undefined;
  operator?: Operator | undefined;
  threshold?: number | undefined;
  severity?: Severity | undefined;
  message?: string | null | undefined;
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
  const id = await insertRule(
    ctx.scope,
    {
      ...target,
      metric: input.metric,
      operator: input.operator,
      threshold: input.threshold,
      severity: input.severity ?? 'warning',
      message: input.message ?? null,
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
    };
    await updateRule(tx, id, patch, ctx.clock.now());
    // A changed condition or target starts from a clean state; a new text or severity does not.
    const conditionChanged =
      target.device_id !== current.device_id ||
      target.zone_id !== current.zone_id ||
      (input.metric !== undefined && input.metric !== current.metric) ||
      (input.operator !== undefined && input.operator !== current.operator) ||
      (input.threshold !== undefined && input.threshold !== current.threshold);
    if (conditionChanged) await resetRuleStates(tx, id);
    return getRule(tx, id);
  });
}

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
