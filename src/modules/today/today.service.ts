// The Today page in one call: what needs someone's attention now, each part its count and its
// first items. Staff see the tasks assigned to them and nothing of webhooks; owners see everything.
import { formatTimestamp, isoTime, isoTimeOrNull } from '../../platform/dates.js';
import { validationFailed } from '../../platform/errors.js';
import type { RequestContext } from '../../platform/resource/context.js';
import {
  activeAlerts,
  batchesAwaitingConfirmation,
  offlineDevices,
  overdueTasks,
  type Part,
  pausedEndpoints,
  type TaskSummaryRow,
  tasksOfDay,
} from './today.repository.js';

export const DEFAULT_TODAY_LIMIT = 5;
export const MAX_TODAY_LIMIT = 50;

/** Whether the runtime knows this IANA time zone ("Asia/Ho_Chi_Minh", "UTC"). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock date and time at `ms` in `zone`, read back as if it were UTC. */
function wallClock(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(ms);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
}

/** The instant the wall clock of `zone` shows `wall` (UTC-read); the later one where a shift skips it. */
function instantOf(wall: number, zone: string): number {
  let guess = wall;
  for (let i = 0; i < 3; i++) guess = wall - (wallClock(guess, zone) - guess);
  return guess;
}

/** The day of `now` in `zone`: its date, and the instants it starts and ends ([from, to)). */
export function dayIn(now: number, zone: string): { date: string; from: number; to: number } {
  const wall = wallClock(now, zone);
  const midnight = wall - (((wall % 86_400_000) + 86_400_000) % 86_400_000);
  return {
    date: new Date(midnight).toISOString().slice(0, 10),
    from: instantOf(midnight, zone),
    to: instantOf(midnight + 86_400_000, zone),
  };
}

const counted = <R, A>(part: Part<R>, present: (row: R) => A) => ({
  count: part.count ?? null,
  items: part.rows.map(present),
});

const presentTask = (now: number) => (row: TaskSummaryRow) => {
  const end = row.end_at === null ? null : Number(row.end_at);
  return {
    id: row.id,
    name: row.name,
    start: formatTimestamp(row.start_at === null ? Number(row.created_at) : Number(row.start_at)) ?? '',
    end: formatTimestamp(end),
    assigned_to: row.assigned_to,
    assigned_name: row.assigned_to === null ? null : row.assigned_name,
    season_id: row.season_id,
    category_task_id: row.category_task_id,
    overdue: end !== null && end < now,
  };
};

export async function today(
  ctx: RequestContext,
  query: { tz?: string | undefined; limit?: number | undefined },
) {
  const zone = query.tz ?? 'UTC';
  if (!isTimeZone(zone)) {
    throw validationFailed([{ field: 'tz', message: 'field.format', params: { format: 'IANA time zone' } }]);
  }
  const limit = query.limit ?? DEFAULT_TODAY_LIMIT;
  const now = ctx.clock.now();
  const day = dayIn(now, zone);
  const owner = ctx.user.role === 'owner';
  const assignee = owner ? undefined : ctx.user.id;
  // One part after the other: a request holds one database connection at a time.
  const alerts = await activeAlerts(ctx.scope, limit);
  const devices = await offlineDevices(ctx.scope, limit);
  const overdue = await overdueTasks(ctx.scope, { now, assignee }, limit);
  const ofDay = await tasksOfDay(ctx.scope, { from: day.from, to: day.to, now, assignee }, limit);
  const batches = await batchesAwaitingConfirmation(ctx.scope, limit);
  const paused = owner ? await pausedEndpoints(ctx.scope, limit) : undefined;
  return {
    generated_at: isoTime(now),
    day: { date: day.date, tz: zone, starts_at: isoTime(day.from), ends_at: isoTime(day.to) },
    alerts: {
      unacknowledged: alerts.unacknowledged ?? null,
      ...counted(alerts, (row) => ({
        id: row.id,
        device_id: row.device_id,
        device_code: row.device_code,
        device_name: row.device_name,
        metric: row.metric,
        value: row.value,
        threshold: row.threshold,
        operator: row.operator,
        severity: row.severity,
        message: row.message,
        recorded_at: isoTime(Number(row.recorded_at)),
        created_at: isoTime(Number(row.created_at)),
        acknowledged_at: isoTimeOrNull(row.acknowledged_at === null ? null : Number(row.acknowledged_at)),
        acknowledged_by: row.acknowledged_by,
      })),
    },
    offline_devices: counted(devices, (row) => ({
      id: row.id,
      code: row.code,
      name: row.name,
      zone_id: row.zone_id,
      last_heartbeat: isoTimeOrNull(row.last_heartbeat_at === null ? null : Number(row.last_heartbeat_at)),
      offline_since: isoTimeOrNull(row.offline_at === null ? null : Number(row.offline_at)),
    })),
    tasks: {
      overdue: counted(overdue, presentTask(now)),
      today: counted(ofDay, presentTask(now)),
    },
    harvest_batches: counted(batches, (row) => ({
      id: row.id,
      parcel_id: row.parcel_id,
      parcel_name: row.parcel_name,
      crop_type_id: row.crop_type_id,
      crop_type_name: row.crop_type_name,
      quantity_kg: Number(row.quantity_kg),
      harvested_at: isoTime(Number(row.harvested_at)),
      declared_by: row.declared_by,
    })),
    paused_webhooks:
      paused === undefined
        ? null
        : counted(paused, (row) => ({
            id: row.public_id,
            url: row.url,
            description: row.description,
            paused_reason: row.paused_reason,
            updated_at: isoTime(Number(row.updated_at)),
          })),
  };
}
