// IoT: devices, threshold rules, readings (each one a heartbeat), alerts, the offline sweeper.
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { parseTimestamp } from '../../platform/dates.js';
import { checkReferences } from '../../platform/db/references.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import type { Database } from '../../platform/db/types.js';
import { type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import { refOrNull } from '../../platform/resource/input.js';
import { emitEvent, type OutboxDeps } from '../webhooks/outbox.js';
import {
  type DeviceRow,
  findDevice,
  findDevicesByCodes,
  findOverdueDevices,
  findRule,
  insertAlert,
  insertDevice,
  insertReadings,
  insertRule,
  loadRuleStates,
  lockLiveDevices,
  markDeviceOffline,
  type Page,
  parcelIdsByDevice,
  type RuleRow,
  recordHeartbeats,
  replaceDeviceParcels,
  resetRuleStates,
  rulesForDevices,
  saveRuleStates,
  softDeleteDevice,
  softDeleteRule,
  stateKey,
  updateDevice,
  updateRule,
} from './iot.repository.js';
import {
  INITIAL_STATE,
  METRIC_PATTERN,
  type Operator,
  type RuleState,
  renderAlertMessage,
  type Severity,
  stepRuleState,
} from './thresholds.js';

export interface ClockDeps {
  clock: Clock;
}

/** Deps of the parts that raise events. */
export interface IotDeps extends OutboxDeps, ClockDeps {}

export const MAX_READINGS_PER_CALL = 1000;
export const DEFAULT_HEARTBEAT_TIMEOUT_SECONDS = 300;
/** Readings stamped further ahead of the server's clock than this are refused. */
export const MAX_FUTURE_SKEW_MS = 60 * 60_000;
export const DEVICE_CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

// Devices

export interface DeviceAnswer {
  id: number;
  code: string;
  name: string;
  zone_id: number | null;
  parcel_ids: number[];
  heartbeat_timeout_seconds: number;
  status: 'online' | 'offline';
  last_heartbeat: string | null;
  created_at: string;
  updated_at: string;
}

export function toDeviceAnswer(row: DeviceRow, parcelIds: number[]): DeviceAnswer {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    zone_id: row.zone_id,
    parcel_ids: parcelIds,
    heartbeat_timeout_seconds: row.heartbeat_timeout_seconds,
    status: row.is_online === 1 ? 'online' : 'offline',
    last_heartbeat: isoOrNull(row.last_heartbeat_at),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export interface DeviceInput {
  code?: string | undefined;
  name?: string | undefined;
  zone_id?: number | null | undefined;
  parcel_ids?: number[] | undefined;
  heartbeat_timeout_seconds?: number | undefined;
}

async function checkDeviceInput(scope: Scope, input: DeviceInput): Promise<void> {
  const errors: FieldError[] = [];
  if (input.code !== undefined && !DEVICE_CODE_PATTERN.test(input.code))
    errors.push({ field: 'code', message: 'field.pattern' });
  errors.push(
    ...(await checkReferences(scope, [
      { field: 'zone_id', table: 'zones', id: input.zone_id },
      { field: 'parcel_ids', table: 'parcels', id: input.parcel_ids },
    ])),
  );
  if (errors.length > 0) throw validationFailed(errors);
}

export async function getDevice(scope: Scope, id: number): Promise<DeviceAnswer> {
  const row = await findDevice(scope, id);
  if (!row) throw notFound();
  const parcels = await parcelIdsByDevice(scope, [id]);
  return toDeviceAnswer(row, parcels.get(id) ?? []);
}

export async function createDevice(
  deps: ClockDeps,
  scope: Scope,
  sent: DeviceInput & { code: string },
): Promise<DeviceAnswer> {
  const input = { ...sent, zone_id: refOrNull(sent.zone_id) };
  await checkDeviceInput(scope, input);
  return inTransaction(scope, async (tx) => {
    const id = await insertDevice(
      tx,
      {
        code: input.code,
        name: input.name?.trim() || input.code,
        zone_id: input.zone_id ?? null,
        heartbeat_timeout_seconds: input.heartbeat_timeout_seconds ?? DEFAULT_HEARTBEAT_TIMEOUT_SECONDS,
      },
      deps.clock.now(),
    );
    await replaceDeviceParcels(tx, id, [...new Set(input.parcel_ids ?? [])]);
    return getDevice(tx, id);
  });
}

export async function changeDevice(
  deps: ClockDeps,
  scope: Scope,
  id: number,
  sent: DeviceInput,
): Promise<DeviceAnswer> {
  const input = { ...sent, zone_id: refOrNull(sent.zone_id) };
  await checkDeviceInput(scope, input);
  return inTransaction(scope, async (tx) => {
    const current = await findDevice(tx, id);
    if (!current) throw notFound();
    const patch: Parameters<typeof updateDevice>[2] = {};
    if (input.code !== undefined) patch.code = input.code;
    // A blank name falls back to the code, as on create.
    if (input.name !== undefined) patch.name = input.name.trim() || input.code || current.code;
    if (input.zone_id !== undefined) patch.zone_id = input.zone_id;
    if (input.heartbeat_timeout_seconds !== undefined)
      patch.heartbeat_timeout_seconds = input.heartbeat_timeout_seconds;
    if (!(await updateDevice(tx, id, patch, deps.clock.now()))) throw notFound();
    if (input.parcel_ids !== undefined) await replaceDeviceParcels(tx, id, [...new Set(input.parcel_ids)]);
    return getDevice(tx, id);
  });
}

export async function removeDevice(deps: ClockDeps, scope: Scope, id: number): Promise<void> {
  const removed = await inTransaction(scope, (tx) => softDeleteDevice(tx, id, deps.clock.now()));
  if (!removed) throw notFound();
}

export async function devicesWithParcels(scope: Scope, rows: DeviceRow[]): Promise<DeviceAnswer[]> {
  const parcels = await parcelIdsByDevice(
    scope,
    rows.map((r) => r.id),
  );
  return rows.map((row) => toDeviceAnswer(row, parcels.get(row.id) ?? []));
}

export async function heartbeat(deps: ClockDeps, scope: Scope, deviceCode: string): Promise<DeviceAnswer> {
  return inTransaction(scope, async (tx) => {
    const [device] = await findDevicesByCodes(tx, [deviceCode]);
    if (!device) throw validationFailed([{ field: 'device_code', message: 'field.not_found' }]);
    await recordHeartbeats(tx, [device.id], deps.clock.now());
    return getDevice(tx, device.id);
  });
}

// Rules

export interface RuleAnswer {
  id: number;
  device_id: number | null;
  zone_id: number | null;
  metric: string;
  operator: Operator;
  threshold: number;
  severity: Severity;
  message: string | null;
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
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

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

export async function getRule(scope: Scope, id: number): Promise<RuleAnswer> {
  const row = await findRule(scope, id);
  if (!row) throw notFound();
  return toRuleAnswer(row);
}

export async function createRule(
  deps: ClockDeps,
  scope: Scope,
  input: RuleInput & { metric: string; operator: Operator; threshold: number },
): Promise<RuleAnswer> {
  const target = { device_id: refOrNull(input.device_id) ?? null, zone_id: refOrNull(input.zone_id) ?? null };
  await checkRuleTarget(scope, target, input.metric);
  const id = await insertRule(
    scope,
    {
      ...target,
      metric: input.metric,
      operator: input.operator,
      threshold: input.threshold,
      severity: input.severity ?? 'warning',
      message: input.message ?? null,
    },
    deps.clock.now(),
  );
  return getRule(scope, id);
}

export async function changeRule(
  deps: ClockDeps,
  scope: Scope,
  id: number,
  input: RuleInput,
): Promise<RuleAnswer> {
  return inTransaction(scope, async (tx) => {
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
    await updateRule(tx, id, patch, deps.clock.now());
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

export async function removeRule(deps: ClockDeps, scope: Scope, id: number): Promise<void> {
  if (!(await softDeleteRule(scope, id, deps.clock.now()))) throw notFound();
}

// Readings

export type ReadingResult =
  | { index: number; status: 'accepted'; reading_id: number; alert_ids: number[] }
  | { index: number; status: 'rejected'; errors: FieldError[] };

interface ParsedReading {
  index: number;
  deviceCode: string;
  metric: string;
  value: number;
  recordedAt: number;
}

/** Checks one reading of a batch; the errors name the reading's position (readings.3.value). */
export function parseReading(raw: unknown, index: number, now: number): ParsedReading | FieldError[] {
  const at = (field: string) => `readings.${index}.${field}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return [{ field: `readings.${index}`, message: 'field.type', params: { type: 'an object' } }];
  }
  const r = raw as Record<string, unknown>;
  const errors: FieldError[] = [];
  const deviceCode = typeof r.device_code === 'number' ? String(r.device_code) : r.device_code;
  if (deviceCode === undefined || deviceCode === null || deviceCode === '') {
    errors.push({ field: at('device_code'), message: 'field.required' });
  } else if (typeof deviceCode !== 'string' || !DEVICE_CODE_PATTERN.test(deviceCode)) {
    errors.push({ field: at('device_code'), message: 'field.pattern' });
  }
  if (r.metric === undefined || r.metric === null || r.metric === '') {
    errors.push({ field: at('metric'), message: 'field.required' });
  } else if (typeof r.metric !== 'string' || !METRIC_PATTERN.test(r.metric)) {
    errors.push({ field: at('metric'), message: 'iot.metric_pattern' });
  }
  const value =
    typeof r.value === 'number'
      ? r.value
      : typeof r.value === 'string' && r.value.trim() !== ''
        ? Number(r.value)
        : Number.NaN;
  if (r.value === undefined || r.value === null)
    errors.push({ field: at('value'), message: 'field.required' });
  else if (!Number.isFinite(value))
    errors.push({ field: at('value'), message: 'field.type', params: { type: 'a finite number' } });
  let recordedAt = now;
  if (r.recorded_at !== undefined && r.recorded_at !== null) {
    const parsed = typeof r.recorded_at === 'string' ? parseTimestamp(r.recorded_at) : undefined;
    if (parsed === undefined) errors.push({ field: at('recorded_at'), message: 'field.timestamp' });
    else if (parsed > now + MAX_FUTURE_SKEW_MS)
      errors.push({ field: at('recorded_at'), message: 'iot.recorded_in_future' });
    else recordedAt = parsed;
  }
  if (errors.length > 0) return errors;
  return { index, deviceCode: deviceCode as string, metric: r.metric as string, value, recordedAt };
}

interface RaisedAlert {
  rule: RuleRow;
  device: DeviceRow;
  reading: ParsedReading;
}

function ruleApplies(rule: RuleRow, device: DeviceRow, metric: string): boolean {
  if (rule.metric !== metric) return false;
  return rule.device_id === device.id || (rule.zone_id !== null && rule.zone_id === device.zone_id);
}

/**
 * Stores a batch of readings in one transaction. Each reading is accepted or rejected on its own;
 * accepted ones are stored, count as heartbeats, and move the rules' edge state (in recorded_at
 * order), raising an alert and an `iot.alert.raised` event on each crossing.
 */
export async function ingestReadings(
  deps: IotDeps,
  scope: Scope,
  raw: readonly unknown[],
): Promise<ReadingResult[]> {
  const now = deps.clock.now();
  const parsed = raw.map((r, i) => parseReading(r, i, now));
  const results: ReadingResult[] = new Array(raw.length);

  await inTransaction(scope, async (tx) => {
    const valid = parsed.filter((p): p is ParsedReading => !Array.isArray(p));
    const found = await findDevicesByCodes(tx, [...new Set(valid.map((p) => p.deviceCode))]);
    const live = await lockLiveDevices(
      tx,
      found.map((d) => d.id),
    );
    const devices = found.filter((d) => live.has(d.id));
    const byCode = new Map(devices.map((d) => [d.code, d]));

    const accepted: { reading: ParsedReading; device: DeviceRow }[] = [];
    parsed.forEach((p, index) => {
      if (Array.isArray(p)) {
        results[index] = { index, status: 'rejected', errors: p };
        return;
      }
      const device = byCode.get(p.deviceCode);
      if (!device) {
        results[index] = {
          index,
          status: 'rejected',
          errors: [{ field: `readings.${index}.device_code`, message: 'field.not_found' }],
        };
        return;
      }
      accepted.push({ reading: p, device });
    });
    if (accepted.length === 0) return;

    const heardFrom = [...new Map(accepted.map((a) => [a.device.id, a.device])).values()];
    const rules = await rulesForDevices(tx, heardFrom);
    const states = await loadRuleStates(
      tx,
      rules.map((r) => r.id),
      heardFrom.map((d) => d.id),
    );
    const changed = new Map<string, { ruleId: number; deviceId: number; state: RuleState }>();
    const raised = new Map<number, RaisedAlert[]>();
    const inTimeOrder = [...accepted].sort(
      (a, b) => a.reading.recordedAt - b.reading.recordedAt || a.reading.index - b.reading.index,
    );
    for (const { reading, device } of inTimeOrder) {
      for (const rule of rules) {
        if (!ruleApplies(rule, device, reading.metric)) continue;
        const key = stateKey(rule.id, device.id);
        const before = changed.get(key)?.state ?? states.get(key) ?? INITIAL_STATE;
        const step = stepRuleState(before, reading, rule);
        if (step.state !== before)
          changed.set(key, { ruleId: rule.id, deviceId: device.id, state: step.state });
        if (step.raise)
          raised.set(reading.index, [...(raised.get(reading.index) ?? []), { rule, device, reading }]);
      }
    }

    const ids = await insertReadings(
      tx,
      accepted.map(({ reading, device }) => ({
        device_id: device.id,
        metric: reading.metric,
        value: reading.value,
        recorded_at: reading.recordedAt,
        received_at: now,
      })),
    );
    await saveRuleStates(tx, [...changed.values()], now);
    await recordHeartbeats(
      tx,
      heardFrom.map((d) => d.id),
      now,
    );

    const parcels =
      raised.size > 0
        ? await parcelIdsByDevice(
            tx,
            heardFrom.map((d) => d.id),
          )
        : new Map<number, number[]>();
    for (const [position, { reading }] of accepted.entries()) {
      const alertIds: number[] = [];
      for (const alert of raised.get(reading.index) ?? []) {
        alertIds.push(await raiseAlert(deps, tx, alert, parcels.get(alert.device.id) ?? [], now));
      }
      results[reading.index] = {
        index: reading.index,
        status: 'accepted',
        reading_id: ids[position]!,
        alert_ids: alertIds,
      };
    }
  });
  return results;
}

async function raiseAlert(
  deps: IotDeps,
  tx: Scope,
  alert: RaisedAlert,
  parcelIds: number[],
  now: number,
): Promise<number> {
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
  const alertId = await insertAlert(tx, {
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
  });
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
    message,
    rule_id: rule.id,
    recorded_at: new Date(reading.recordedAt).toISOString(),
  });
  return alertId;
}

// The offline sweeper

/**
 * Marks every online device whose last heartbeat is older than its timeout as offline, raising
 * one `iot.device.offline` per outage. Safe with any number of sweepers: the conditional update
 * lets exactly one of them take each outage.
 */
export async function sweepOfflineDevices(
  deps: IotDeps & { db: Kysely<Database> },
  options: { batchSize?: number; notBefore?: number | undefined } = {},
): Promise<number> {
  const now = deps.clock.now();
  const batchSize = options.batchSize ?? 500;
  let marked = 0;
  for (;;) {
    const overdue = await findOverdueDevices(deps.db, now, batchSize, options.notBefore);
    for (const candidate of overdue) {
      const scope: Scope = { db: deps.db, tenantId: candidate.tenant_id };
      const raised = await inTransaction(scope, async (tx) => {
        if (!(await markDeviceOffline(tx, candidate.id, candidate.last_heartbeat_at, now))) return false;
        const device = await getDevice(tx, candidate.id);
        await emitEvent(deps, tx, 'iot.device.offline', {
          device_id: device.id,
          device_code: device.code,
          device_name: device.name,
          zone_id: device.zone_id,
          parcel_ids: device.parcel_ids,
          last_heartbeat: device.last_heartbeat,
        });
        return true;
      });
      if (raised) marked += 1;
    }
    if (overdue.length < batchSize) return marked;
  }
}

export type { Page };

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
