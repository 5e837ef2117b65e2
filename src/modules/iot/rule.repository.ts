// Threshold rule statements and the rules' edge state per device.
import type { Selectable } from 'kysely';
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

/** Live rules aimed at any of these devices, directly or through their zone. */
export async function rulesForDevices(
  scope: Scope,
  devices: readonly Pick<DeviceRow, 'id' | 'zone_id'>[],
): Promise<RuleRow[]> {
  if (devices.length === 0) return [];
  const deviceIds = devices.map((d) => d.id);
  const zoneIds = [...new Set(devices.map((d) => d.zone_id).filter((z): z is number => z !== null))];
  return selectScoped(scope, 'iot_rules')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where((eb) => {
      const targets = [eb('device_id', 'in', deviceIds)];
      if (zoneIds.length > 0) targets.push(eb('zone_id', 'in', zoneIds));
      return eb.or(targets);
    })
    .orderBy('id')
    .execute();
}

export function stateKey(ruleId: number, deviceId: number): string {
  return `${ruleId}:${deviceId}`;
}

export async function loadRuleStates(
  scope: Scope,
  ruleIds: readonly number[],
  deviceIds: readonly number[],
): Promise<Map<string, RuleState>> {
  const map = new Map<string, RuleState>();
  if (ruleIds.length === 0 || deviceIds.length === 0) return map;
  const rows = await selectScoped(scope, 'iot_rule_states')
    .select(['rule_id', 'device_id', 'breached', 'last_recorded_at', 'pending_since', 'active_alert_id'])
    .where('rule_id', 'in', ruleIds)
    .where('device_id', 'in', deviceIds)
    .execute();
  for (const row of rows) {
    map.set(stateKey(row.rule_id, row.device_id), {
      breached: row.breached === 1,
      lastRecordedAt: row.last_recorded_at,
      pendingSince: row.pending_since,
      activeAlertId: row.active_alert_id,
    });
  }
  return map;
}

export async function saveRuleStates(
  scope: Scope,
  states: readonly { ruleId: number; deviceId: number; state: RuleState }[],
  now: number,
): Promise<void> {
  for (let i = 0; i < states.length; i += 200) {
    const rows = states.slice(i, i + 200).map(({ ruleId, deviceId, state }) => ({
      rule_id: ruleId,
      device_id: deviceId,
      breached: state.breached ? 1 : 0,
      last_recorded_at: state.lastRecordedAt ?? 0,
      pending_since: state.pendingSince,
      active_alert_id: state.activeAlertId,
      updated_at: now,
    }));
    await insertScoped(scope, 'iot_rule_states', rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'rule_id', 'device_id']).doUpdateSet((eb) => ({
          breached: eb.ref('excluded.breached'),
          last_recorded_at: eb.ref('excluded.last_recorded_at'),
          pending_since: eb.ref('excluded.pending_since'),
          active_alert_id: eb.ref('excluded.active_alert_id'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}
