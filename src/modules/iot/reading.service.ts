// Sensor readings: a batch sent in (ingestion: each reading checked on its own, stored, added to
// the roll-ups, counted as a heartbeat, and run through the threshold rules), and a device's
// stored readings.

import { parseTimestamp } from '../../platform/dates.js';
import { isPostgresDb } from '../../platform/db/database.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import { alertsRaised, readingsIngested } from '../../platform/metrics.js';
import type { RequestContext } from '../../platform/resource/context.js';
import type { ListQueryOf } from '../../platform/resource/paging.js';
import { DeliveriesOfTransaction, EndpointsOfTransaction, type OutboxDeps } from '../webhooks/outbox.js';
import { alertsFirst, lifecycleSteps, runAlertSteps } from './alert-lifecycle.js';
import {
  announceBackOnline,
  type DeviceRow,
  findDevice,
  findDevicesByCodes,
  lockLiveDevices,
  parcelIdsByDevice,
} from './device.repository.js';
import { DEVICE_CODE_PATTERN } from './device.service.js';
import { toReadingAnswer } from './reading.presenter.js';
import {
  listReadings,
  type ReadingInsert,
  storeHeardReadings,
  storeReadingsAtOnce,
} from './reading.repository.js';
import type { DeviceReadingFilters } from './reading.schemas.js';
import { RecentSet } from './recent-set.js';
import { ruleStatesWrite, rulesAndStatesFor, saveRuleStates } from './rule.repository.js';
import { METRIC_PATTERN } from './thresholds.js';

/** Readings stamped further ahead of the server's clock than this are refused. */
export const MAX_FUTURE_SKEW_MS = 60 * 60_000;

export type ReadingResult =
  | {
      index: number;
      status: 'accepted';
      reading_id: number;
      /** Alerts this reading raised. */
      alert_ids: number[];
      /** Active alerts this reading resolved (back past the rule's clear threshold). */
      resolved_alert_ids: number[];
    }
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

/**
 * Stores a batch of readings in one transaction. Each reading is accepted or rejected on its own;
 * accepted ones are stored, count as heartbeats (a device back from an outage raises
 * `iot.device.online`), and move the rules' alert lifecycle (in recorded_at order): an alert and
 * `iot.alert.raised` when a breach has lasted the rule's minimum duration, its resolution and
 * `iot.alert.resolved` when a reading is back past the clear threshold.
 */
export async function ingestReadings(
  deps: OutboxDeps,
  scope: Scope,
  raw: readonly unknown[],
): Promise<ReadingResult[]> {
  const now = deps.clock.now();
  const parsed = raw.map((r, i) => parseReading(r, i, now));
  const results: ReadingResult[] = new Array(raw.length);

  // PostgreSQL: a batch that needs nothing but storing is one statement (storeReadingsAtOnce); it
  // finds the devices, which any other batch then takes into the transaction below.
  let found: DeviceRow[] | undefined;
  if (isPostgresDb(scope.db)) {
    const valid = parsed.filter((p): p is ParsedReading => !Array.isArray(p));
    const keys = [...new Set(valid.map((r) => `${scope.tenantId}:${r.deviceCode}`))];
    if (!keys.some((key) => tookTransaction.recently(key, now))) {
      const atOnce = await storeReadingsAtOnce(scope, valid, now);
      const accepted = sortOut(parsed, atOnce.devices, results);
      if (atOnce.ids !== undefined) fillIn(results, accepted, atOnce.ids);
      if (atOnce.ids !== undefined || accepted.length === 0) return counted(results, []);
      found = atOnce.devices;
      for (const key of keys) tookTransaction.note(key, now);
    }
  }

  const raisedSeverities: string[] = [];
  await inTransaction(scope, async (tx) => {
    // Devices found outside the transaction are locked (and read again, as they are now) here;
    // otherwise they are found and locked at once.
    const devices = found
      ? await lockLiveDevices(tx, found)
      : await findDevicesByCodes(
          tx,
          [...new Set(parsed.flatMap((p) => (Array.isArray(p) ? [] : [p.deviceCode])))],
          { lock: true },
        );
    const accepted = sortOut(parsed, devices, results);
    if (accepted.length > 0) await ingestAccepted(deps, tx, accepted, results, raisedSeverities, now);
  });
  return counted(results, raisedSeverities);
}

/**
 * PostgreSQL: the devices (tenant and code) whose batch the one statement could not store (a rule
 * aims at them or their zone, or they come back online), and when. For a while their next batches
 * take the transaction's way at once: the one statement would lock them, find the same, and store
 * nothing. A rule deleted meanwhile costs only the transaction's way until the while is over.
 */
const tookTransaction = new RecentSet(10_000, 10_000);

/** Counts a batch's stored readings and raised alerts, once stored (a rolled-back batch counts nothing). */
function counted(results: ReadingResult[], raisedSeverities: readonly string[]): ReadingResult[] {
  const stored = results.filter((r) => r.status === 'accepted').length;
  if (stored > 0) readingsIngested.inc(stored);
  for (const severity of raisedSeverities) alertsRaised.inc({ severity });
  return results;
}

interface AcceptedReading {
  reading: ParsedReading;
  device: DeviceRow;
}

/** Rejects the readings that failed their checks or name no live device; answers the others. */
function sortOut(
  parsed: readonly (ParsedReading | FieldError[])[],
  devices: readonly DeviceRow[],
  results: ReadingResult[],
): AcceptedReading[] {
  const byCode = new Map(devices.map((d) => [d.code, d]));
  const accepted: AcceptedReading[] = [];
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
  return accepted;
}

/** The readings' rows as stored, in the batch's order. */
function readingRows(accepted: readonly AcceptedReading[], now: number): ReadingInsert[] {
  return accepted.map(({ reading, device }) => ({
    device_id: device.id,
    metric: reading.metric,
    value: reading.value,
    recorded_at: reading.recordedAt,
    received_at: now,
  }));
}

/** The accepted readings' results, without alerts: their ids in the batch's order. */
function fillIn(
  results: ReadingResult[],
  accepted: readonly AcceptedReading[],
  ids: readonly number[],
): void {
  for (const [position, { reading }] of accepted.entries()) {
    results[reading.index] = {
      index: reading.index,
      status: 'accepted',
      reading_id: ids[position]!,
      alert_ids: [],
      resolved_alert_ids: [],
    };
  }
}

/**
 * The accepted readings of a batch, their devices locked: stored, added to the roll-ups, counted as
 * heartbeats, and run through the rules; fills in their results.
 */
async function ingestAccepted(
  deps: OutboxDeps,
  tx: Scope,
  accepted: readonly AcceptedReading[],
  results: ReadingResult[],
  raisedSeverities: string[],
  now: number,
): Promise<void> {
  const heardFrom = [...new Map(accepted.map((a) => [a.device.id, a.device])).values()];
  const { rules, states } = await rulesAndStatesFor(tx, heardFrom);
  const { steps, changed } = lifecycleSteps(accepted, rules, states);

  // The devices were read under lock: those the sweeper had marked offline are back online. On
  // PostgreSQL the batch's alert writes that can go first are made with its readings.
  const heardIds = heardFrom.map((d) => d.id);
  const first = isPostgresDb(tx.db) ? alertsFirst(steps, states, now) : undefined;
  const stored = await storeHeardReadings(tx, readingRows(accepted, now), heardIds, now, first);
  const ids = stored.ids;
  await announceBackOnline(tx, heardFrom, now, stored.parcels);

  const parcels =
    stored.parcels ??
    (steps.length > 0 ? await parcelIdsByDevice(tx, heardIds) : new Map<number, number[]>());
  // The batch's events read the endpoints once (ingestion changes none), and their deliveries are
  // queued together at the end, with the rule states on PostgreSQL (one statement).
  const deliveries = new DeliveriesOfTransaction();
  const eventDeps = { ...deps, endpoints: new EndpointsOfTransaction(), deliveries };
  const { activeIds, raisedBy, resolvedBy } = await runAlertSteps(eventDeps, tx, steps, {
    states,
    first,
    stored,
    parcels,
    now,
  });
  for (const step of steps) if (step.kind === 'raise') raisedSeverities.push(step.rule.severity);
  const savedStates = [...changed].map(([key, { ruleId, deviceId, state }]) => ({
    ruleId,
    deviceId,
    state: { ...state, activeAlertId: state.breached ? (activeIds.get(key) ?? null) : null },
  }));
  const statesWrite = ruleStatesWrite(tx, savedStates, now);
  await deliveries.flush(tx, statesWrite);
  if (!statesWrite) await saveRuleStates(tx, savedStates, now);

  for (const [position, { reading }] of accepted.entries()) {
    results[reading.index] = {
      index: reading.index,
      status: 'accepted',
      reading_id: ids[position]!,
      alert_ids: raisedBy.get(reading.index) ?? [],
      resolved_alert_ids: resolvedBy.get(reading.index) ?? [],
    };
  }
}

/** A batch sent in: 422 naming every error when no reading is accepted, else one result per reading. */
export async function receiveReadings(
  ctx: RequestContext,
  raw: readonly unknown[],
): Promise<ReadingResult[]> {
  const results = await ingestReadings(ctx, ctx.scope, raw);
  const rejected = results.filter((r) => r.status === 'rejected');
  if (rejected.length === results.length) throw validationFailed(rejected.flatMap((r) => r.errors));
  return results;
}

/** A device's readings, newest first, filtered by metric and time; an unknown device is a 404. */
export async function listDeviceReadings(
  ctx: RequestContext,
  deviceId: number,
  query: ListQueryOf<typeof DeviceReadingFilters>,
) {
  if (!(await findDevice(ctx.scope, deviceId))) throw notFound();
  const bound = (field: 'from' | 'to') => {
    const raw = query[field];
    if (raw === undefined || raw === null) return undefined;
    const ms = parseTimestamp(raw);
    if (ms === undefined) throw validationFailed([{ field, message: 'field.timestamp' }]);
    return ms;
  };
  const rows = await listReadings(
    ctx.scope,
    { deviceId, metric: query.metric, from: bound('from'), to: bound('to') },
    { offset: query.page * query.pageLimit, limit: query.pageLimit },
  );
  return rows.map(toReadingAnswer);
}
