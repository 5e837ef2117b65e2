// GET /api/today (extension): the farm app's Today page in one answer.
import { type TSchema, Type } from 'typebox';
import { IsoTime, NullableIsoTime } from '../../platform/resource/fields.js';
import { DEFAULT_TODAY_LIMIT, MAX_TODAY_LIMIT } from './today.service.js';

export const TodayQuery = Type.Object({
  tz: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_+\\-/]+$',
      description: 'IANA time zone that decides which day is today (default UTC), e.g. Asia/Ho_Chi_Minh',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_TODAY_LIMIT,
      default: DEFAULT_TODAY_LIMIT,
      description: `Items per part (default ${DEFAULT_TODAY_LIMIT}, at most ${MAX_TODAY_LIMIT})`,
    }),
  ),
});

const NullableInt = Type.Union([Type.Integer(), Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** A part of the page: how many there are, and the first `limit` of them. */
const Counted = (item: TSchema, what: string, more: Record<string, TSchema> = {}) =>
  Type.Object(
    {
      count: Type.Union([Type.Integer(), Type.Null()], {
        description: `How many ${what} there are; null past 10,000 (as lists stop counting)`,
      }),
      ...more,
      items: Type.Array(item),
    },
    { description: what },
  );

const TodayAlert = Type.Object({
  id: Type.Integer(),
  device_id: Type.Integer(),
  device_code: Type.String(),
  device_name: Type.String(),
  metric: Type.String(),
  value: Type.Number(),
  threshold: Type.Number(),
  operator: Type.String(),
  severity: Type.String(),
  message: Type.String(),
  recorded_at: IsoTime('The reading that raised it'),
  created_at: IsoTime('Raised'),
  acknowledged_at: NullableIsoTime('Acknowledged; null: nobody has yet'),
  acknowledged_by: NullableInt,
});

const TodayDevice = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  zone_id: NullableInt,
  last_heartbeat: NullableIsoTime('Last heartbeat; null: never heard from'),
  offline_since: NullableIsoTime('Went offline; null: never online'),
});

const TodayTask = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  start: Type.String({ description: 'YYYY-MM-DD HH:MM:SS (UTC), as the diary answers it' }),
  end: Type.Union([Type.String(), Type.Null()], { description: 'YYYY-MM-DD HH:MM:SS (UTC)' }),
  assigned_to: NullableInt,
  assigned_name: NullableString,
  season_id: NullableInt,
  category_task_id: NullableInt,
  overdue: Type.Boolean(),
});

const TodayBatch = Type.Object({
  id: Type.Integer(),
  parcel_id: Type.Integer(),
  parcel_name: NullableString,
  crop_type_id: Type.Integer(),
  crop_type_name: NullableString,
  quantity_kg: Type.Number(),
  harvested_at: IsoTime('Harvested'),
  declared_by: NullableInt,
});

const TodayWebhook = Type.Object({
  id: Type.String({ description: 'ep_… id' }),
  url: Type.String(),
  description: Type.String(),
  paused_reason: NullableString,
  updated_at: IsoTime('Last changed (the pause, unless changed since)'),
});

export const TodayAnswer = Type.Object({
  generated_at: IsoTime('When this answer was made'),
  day: Type.Object({
    date: Type.String({ description: 'Today in tz, YYYY-MM-DD' }),
    tz: Type.String(),
    starts_at: IsoTime('Start of today in tz'),
    ends_at: IsoTime('Start of tomorrow in tz'),
  }),
  alerts: Counted(TodayAlert, 'active alerts: not acknowledged first, newest first', {
    unacknowledged: Type.Union([Type.Integer(), Type.Null()], {
      description: 'How many of the active alerts nobody has acknowledged yet; null past 10,000',
    }),
  }),
  offline_devices: Counted(TodayDevice, 'offline devices, most recently gone first'),
  tasks: Type.Object({
    overdue: Counted(TodayTask, 'open tasks whose end has passed, most recently due first (staff: theirs)'),
    today: Counted(TodayTask, 'open tasks of today that are not overdue, by start (staff: theirs)'),
  }),
  harvest_batches: Counted(TodayBatch, 'harvest batches waiting for confirmation, newest first'),
  paused_webhooks: Type.Union(
    [Counted(TodayWebhook, 'paused webhook endpoints, newest first'), Type.Null()],
    {
      description: 'Owners only; null for staff',
    },
  ),
});
