// A batch of readings through the threshold rules: the steps of the alerts' lifecycle it makes (a
// raise, a resolve), in the readings' time order, and those steps run in its transaction, each
// with its event. On PostgreSQL the alert writes that can go first are made with the readings'
// statement (reading.repository.ts), and the steps then only raise their events.
import type { Scope } from '../../platform/db/scope.js';
import type { OutboxDeps } from '../webhooks/outbox.js';
import { type AlertInsert, resolveActiveAlerts, type StoredAlert } from './alert.repository.js';
import {
  announceRaisedAlert,
  announceResolvedAlert,
  raiseAlert,
  raisedAlertRow,
  resolveAlert,
} from './alert.service.js';
import type { DeviceRow } from './device.repository.js';
import type { AlertsFirst } from './reading.repository.js';
import { type RuleRow, stateKey } from './rule.repository.js';
import { INITIAL_STATE, type RuleCondition, type RuleState, stepRuleState } from './thresholds.js';

/** A reading as the lifecycle takes it: its place in the batch, what it measured and when. */
export interface LifecycleReading {
  index: number;
  metric: string;
  value: number;
  recordedAt: number;
}

/** A reading that raised or resolved an alert of a rule on a device, in the order they happened. */
export interface LifecycleStep {
  kind: 'raise' | 'resolve';
  key: string;
  rule: RuleRow;
  device: DeviceRow;
  reading: LifecycleReading;
}

/** A rule's state for a device as the batch left it. */
export interface ChangedState {
  ruleId: number;
  deviceId: number;
  state: RuleState;
}

/** A rule's condition as the pure lifecycle takes it. */
function ruleCondition(rule: RuleRow): RuleCondition {
  return {
    operator: rule.operator,
    threshold: rule.threshold,
    clearThreshold: rule.clear_threshold,
    minDurationMs: rule.min_duration_seconds * 1000,
  };
}

function ruleApplies(rule: RuleRow, device: DeviceRow, metric: string): boolean {
  if (rule.metric !== metric) return false;
  return rule.device_id === device.id || (rule.zone_id !== null && rule.zone_id === device.zone_id);
}

/**
 * The batch's readings through the rules aimed at their devices, in recorded_at order (the batch's
 * order among equals): the steps, and the states changed (by stateKey).
 */
export function lifecycleSteps(
  accepted: readonly { reading: LifecycleReading; device: DeviceRow }[],
  rules: readonly RuleRow[],
  states: ReadonlyMap<string, RuleState>,
): { steps: LifecycleStep[]; changed: Map<string, ChangedState> } {
  const changed = new Map<string, ChangedState>();
  const steps: LifecycleStep[] = [];
  const inTimeOrder = [...accepted].sort(
    (a, b) => a.reading.recordedAt - b.reading.recordedAt || a.reading.index - b.reading.index,
  );
  for (const { reading, device } of inTimeOrder) {
    for (const rule of rules) {
      if (!ruleApplies(rule, device, reading.metric)) continue;
      const key = stateKey(rule.id, device.id);
      const before = changed.get(key)?.state ?? states.get(key) ?? INITIAL_STATE;
      const step = stepRuleState(before, reading, ruleCondition(rule));
      if (step.state !== before)
        changed.set(key, { ruleId: rule.id, deviceId: device.id, state: step.state });
      if (step.raise || step.resolve)
        steps.push({ kind: step.raise ? 'raise' : 'resolve', key, rule, device, reading });
    }
  }
  return { steps, changed };
}

/**
 * The alert writes made first (alertsFirst): with the readings, and after them the resolves of
 * alerts the batch raised (by their place in `raised`); the resolve steps among them.
 */
export type FirstWrites = AlertsFirst & {
  resolvedAfter: { raised: number; at: number }[];
  resolvedFirst: Set<LifecycleStep>;
};

/**
 * The alert writes a batch can make before its steps run (PostgreSQL): its new alerts and the
 * resolves of alerts active before it, with its readings, and the resolves of alerts it raised
 * itself, all in one statement after that; the resolve steps among them are marked. Undefined
 * when there are none, or when a resolve does not know its alert's id: it looks for the newest
 * active alert of its rule and device, which an alert raised later in the batch, stored first,
 * would then be.
 */
export function alertsFirst(
  steps: readonly LifecycleStep[],
  states: ReadonlyMap<string, RuleState>,
  now: number,
): FirstWrites | undefined {
  // Each key's active alert as the steps go: one active before the batch, the batch's raised alert
  // (its place in `raised`), or none.
  const active = new Map<string, 'before' | number | null>(
    [...states].map(([key, state]) => [key, state.activeAlertId === null ? null : 'before']),
  );
  const raised: AlertInsert[] = [];
  const resolved: { id: number; at: number }[] = [];
  const resolvedAfter: { raised: number; at: number }[] = [];
  const resolvedFirst = new Set<LifecycleStep>();
  for (const step of steps) {
    if (step.kind === 'raise') {
      active.set(step.key, raised.length);
      raised.push(raisedAlertRow(step, now));
      continue;
    }
    const was = active.get(step.key);
    if (was === undefined || was === null) return undefined;
    const at = step.reading.recordedAt;
    if (was === 'before') {
      const id = states.get(step.key)!.activeAlertId!;
      // Two states naming one alert (not written so): each resolve would announce it.
      if (resolved.some((r) => r.id === id)) return undefined;
      resolved.push({ id, at });
    } else {
      // An alert the batch raised is resolved by a statement after the one that stores it.
      resolvedAfter.push({ raised: was, at });
    }
    resolvedFirst.add(step);
    active.set(step.key, null);
  }
  return raised.length > 0 || resolved.length > 0
    ? { raised, resolved, resolvedAfter, resolvedFirst }
    : undefined;
}

/**
 * Runs the steps in their order, so one batch can do both to one alert, each with its event. The
 * resolves of alerts the batch raised that can go first are made at once, here, and a step whose
 * write was made first only raises its event. Answers each key's active alert after them, and the
 * alerts raised and resolved by each reading (by its index in the batch).
 */
export async function runAlertSteps(
  deps: OutboxDeps,
  tx: Scope,
  steps: readonly LifecycleStep[],
  context: {
    states: ReadonlyMap<string, RuleState>;
    first: FirstWrites | undefined;
    /** What the readings' statement answered of the writes made first. */
    stored: { alertIds?: number[] | undefined; resolved?: Map<number, StoredAlert> | undefined };
    parcels: ReadonlyMap<number, number[]>;
    now: number;
  },
): Promise<{
  activeIds: Map<string, number | null>;
  raisedBy: Map<number, number[]>;
  resolvedBy: Map<number, number[]>;
}> {
  const { states, first, stored, parcels, now } = context;
  const resolvedRows = new Map(stored.resolved);
  const raisedIds = stored.alertIds;
  if (first && first.resolvedAfter.length > 0) {
    if (!raisedIds) throw new Error('the readings statement answered no ids for the alerts it raised');
    const after = first.resolvedAfter.map(({ raised, at }) => ({ id: raisedIds[raised]!, at }));
    for (const [id, row] of await resolveActiveAlerts(tx, after)) resolvedRows.set(id, row);
  }
  const activeIds = new Map([...states].map(([key, state]) => [key, state.activeAlertId]));
  const raisedBy = new Map<number, number[]>();
  const resolvedBy = new Map<number, number[]>();
  const note = (map: Map<number, number[]>, index: number, id: number) =>
    map.set(index, [...(map.get(index) ?? []), id]);
  let raisedCount = 0;
  for (const step of steps) {
    const parcelIds = parcels.get(step.device.id) ?? [];
    if (step.kind === 'raise') {
      const storedId = stored.alertIds?.[raisedCount];
      const row = first?.raised[raisedCount];
      raisedCount += 1;
      let id: number;
      if (storedId !== undefined && row !== undefined) {
        id = storedId;
        await announceRaisedAlert(deps, tx, step, row, id, parcelIds);
      } else {
        id = await raiseAlert(deps, tx, step, parcelIds, now);
      }
      activeIds.set(step.key, id);
      note(raisedBy, step.reading.index, id);
    } else {
      const cleared = { ...step, alertId: activeIds.get(step.key) ?? null };
      const id =
        first?.resolvedFirst.has(step) && cleared.alertId !== null
          ? await announceResolvedAlert(deps, tx, cleared, resolvedRows.get(cleared.alertId), parcelIds)
          : await resolveAlert(deps, tx, cleared, parcelIds);
      activeIds.set(step.key, null);
      if (id !== null) note(resolvedBy, step.reading.index, id);
    }
  }
  return { activeIds, raisedBy, resolvedBy };
}
