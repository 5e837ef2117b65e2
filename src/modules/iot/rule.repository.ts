// Threshold rule statements and the rules' edge state per device.
import { type Selectable, sql } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import {
  findLive,
  insertRecord,
  listLive,
  type PageOf,
  type PageRequest,
  softDeleteRecord,
  updateRecord,
} from '../../platform/db/records.js';
import { insertScoped, type Scope, selectScoped } from '../../platform/db/scope.js';
import type { IotRulesTable } from '../../platform/db/tables/iot.js';
import type { DeviceRow } from './device.repository.js';
import type { RuleState } from './thresholds.js';

export type RuleRow = Selectable<IotRulesTable>;

export type RuleInsert = Pick<
  RuleRow,
  | 'device_id'
  | 'zone_id'
  | 'metric'
  | 'operator'
  | 'threshold'
  | 'severity'
  | 'message'
  | 'clear_threshold'
  | 'min_duration_seconds'
>;

export async function insertRule(scope: Scope, rule: RuleInsert, now: number): Promise<number> {
  return insertRecord(scope, 'iot_rules', rule, now);
}

export async function updateRule(
  scope: Scope,
  id: number,
  patch: Partial<RuleInsert>,
  now: number,
): Promise<boolean> {
  return updateRecord(scope, 'iot_rules', id, patch, now);
}

/**
 * A rule aimed at something else starts from a clean state: the next reading decides anew. Its
 * active alerts stay as they are (see rule.service.ts).
 */
export async function resetRuleStates(scope: Scope, ruleId: number): Promise<void> {
  await scope.db
    .deleteFrom('iot_rule_states')
    .where('tenant_id', '=', scope.tenantId)
    .where('rule_id', '=', ruleId)
    .execute();
}

export async function findRule(scope: Scope, id: number): Promise<RuleRow | undefined> {
  return findLive(scope, 'iot_rules', id);
}

export async function listRules(scope: Scope, page: PageRequest): Promise<PageOf<RuleRow>> {
  return listLive(scope, 'iot_rules', page);
}

export async function softDeleteRule(scope: Scope, id: number, now: number): Promise<boolean> {
  return softDeleteRecord(scope, 'iot_rules', id, now);
}

export function stateKey(ruleId: number, deviceId: number): string {
  return `${ruleId}:${deviceId}`;
}

export interface RulesAndStates {
  /** Live rules aimed at any of the devices, directly or through their zone, by id. */
  rules: RuleRow[];
  /** Their stored states for those devices, by stateKey (a pair with none starts from the initial). */
  states: Map<string, RuleState>;
}

/** A state as the rules' read answers it: device id, breached (0/1), last recorded, pending since, alert. */
type StateTuple = [number, number, number, number | null, number | null];

/**
 * The live rules aimed at these devices (directly or through their zone) and their states for them,
 * in one statement: each rule's states come as a JSON array beside it (on PostgreSQL one round trip
 * instead of two, for every batch of readings that goes through the transaction).
 */
export async function rulesAndStatesFor(
  scope: Scope,
  devices: readonly Pick<DeviceRow, 'id' | 'zone_id'>[],
): Promise<RulesAndStates> {
  const states = new Map<string, RuleState>();
  if (devices.length === 0) return { rules: [], states };
  const deviceIds = devices.map((d) => d.id);
  const zoneIds = [...new Set(devices.map((d) => d.zone_id).filter((z): z is number => z !== null))];
  const postgres = isPostgresDb(scope.db);
  const tuple = sql`s.device_id, s.breached, s.last_recorded_at, s.pending_since, s.active_alert_id`;
  const rows = await selectScoped(scope, 'iot_rules')
    .selectAll()
    .select((eb) =>
      eb
        .selectFrom('iot_rule_states as s')
        .select(
          (postgres
            ? sql<StateTuple[] | string>`coalesce(json_agg(json_build_array(${tuple})), '[]'::json)`
            : sql<StateTuple[] | string>`json_group_array(json_array(${tuple}))`
          ).as('list'),
        )
        .whereRef('s.tenant_id', '=', 'iot_rules.tenant_id')
        .whereRef('s.rule_id', '=', 'iot_rules.id')
        .where('s.device_id', 'in', deviceIds)
        .as('states'),
    )
    .where('deleted_at', 'is', null)
    .where((eb) => {
      const targets = [eb('device_id', 'in', deviceIds)];
      if (zoneIds.length > 0) targets.push(eb('zone_id', 'in', zoneIds));
      return eb.or(targets);
    })
    .orderBy('id')
    .execute();
  const rules = rows.map(({ states: list, ...rule }) => {
    // PostgreSQL answers json parsed; SQLite answers its text.
    const tuples = (typeof list === 'string' ? JSON.parse(list) : (list ?? [])) as StateTuple[];
    for (const [deviceId, breached, lastRecordedAt, pendingSince, activeAlertId] of tuples) {
      states.set(stateKey(rule.id, deviceId), {
        breached: breached === 1,
        lastRecordedAt: Number(lastRecordedAt),
        pendingSince: pendingSince === null ? null : Number(pendingSince),
        activeAlertId,
      });
    }
    return rule;
  });
  return { rules, states };
}

/** Rule states written by one statement at most. */
const STATES_PER_STATEMENT = 200;

type SavedState = { ruleId: number; deviceId: number; state: RuleState };

/** The upsert of rules' states for their devices (at most STATES_PER_STATEMENT of them). */
function ruleStatesUpsert(scope: Scope, states: readonly SavedState[], now: number) {
  const rows = states.map(({ ruleId, deviceId, state }) => ({
    rule_id: ruleId,
    device_id: deviceId,
    breached: state.breached ? 1 : 0,
    last_recorded_at: state.lastRecordedAt ?? 0,
    pending_since: state.pendingSince,
    active_alert_id: state.activeAlertId,
    updated_at: now,
  }));
  return insertScoped(scope, 'iot_rule_states', rows).onConflict((oc) =>
    oc.columns(['tenant_id', 'rule_id', 'device_id']).doUpdateSet((eb) => ({
      breached: eb.ref('excluded.breached'),
      last_recorded_at: eb.ref('excluded.last_recorded_at'),
      pending_since: eb.ref('excluded.pending_since'),
      active_alert_id: eb.ref('excluded.active_alert_id'),
      updated_at: eb.ref('excluded.updated_at'),
    })),
  );
}

export async function saveRuleStates(
  scope: Scope,
  states: readonly SavedState[],
  now: number,
): Promise<void> {
  for (let i = 0; i < states.length; i += STATES_PER_STATEMENT) {
    await ruleStatesUpsert(scope, states.slice(i, i + STATES_PER_STATEMENT), now).execute();
  }
}

/**
 * saveRuleStates as one statement's write, for a statement that makes it with others
 * (DeliveriesOfTransaction.flush); undefined when there is nothing to save or more than one
 * statement's worth (then saveRuleStates).
 */
export function ruleStatesWrite(scope: Scope, states: readonly SavedState[], now: number) {
  if (states.length === 0 || states.length > STATES_PER_STATEMENT) return undefined;
  return ruleStatesUpsert(scope, states, now);
}
