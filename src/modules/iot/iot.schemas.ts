import { Type } from 'typebox';
import { Id, NullableId, NullableText, RefInput } from '../../platform/resource/fields.js';
import { MAX_READINGS_PER_CALL } from './iot.service.js';

const IsoTime = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} (ISO 8601 UTC)` });
const NullableIsoTime = (description: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    format: 'date-time',
    description: `${description} (ISO 8601 UTC)`,
  });

const DeviceCode = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_.:-]+$',
  description: 'Unique among the tenant’s devices: letters, digits, "_", ".", ":", "-"',
});
const Metric = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z0-9_.]+$',
  description: 'temperature, humidity, soil_moisture, … (lower-case letters, digits, "_" and ".")',
});
const Operator = Type.Union(
  [Type.Literal('gt'), Type.Literal('gte'), Type.Literal('lt'), Type.Literal('lte')],
  {
    description: 'gt, gte, lt or lte: the alerting side of the threshold',
  },
);
const Severity = Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')], {
  description: 'info, warning or critical',
});
const HeartbeatTimeout = Type.Integer({
  minimum: 10,
  maximum: 604_800,
  description: 'Seconds of silence after which the device is offline (default 300)',
});
const ParcelIds = Type.Array(Id(), { maxItems: 200, description: 'Parcels the device watches' });

export const Device = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  zone_id: NullableId(),
  parcel_ids: Type.Array(Type.Integer()),
  heartbeat_timeout_seconds: Type.Integer(),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  last_heartbeat: NullableIsoTime('Last reading or heartbeat; null before the first'),
  created_at: IsoTime('Created'),
  updated_at: IsoTime('Last changed'),
});

export const DeviceCreate = Type.Object(
  {
    code: DeviceCode,
    name: Type.Optional(Type.String({ maxLength: 255, description: 'Defaults to the code' })),
    zone_id: Type.Optional(RefInput('Zone of the device')),
    parcel_ids: Type.Optional(ParcelIds),
    heartbeat_timeout_seconds: Type.Optional(HeartbeatTimeout),
  },
  { additionalProperties: true },
);

export const DeviceUpdate = Type.Object(
  {
    code: Type.Optional(DeviceCode),
    name: Type.Optional(Type.String({ maxLength: 255 })),
    zone_id: Type.Optional(RefInput('Zone of the device; null clears')),
    parcel_ids: Type.Optional(ParcelIds),
    heartbeat_timeout_seconds: Type.Optional(HeartbeatTimeout),
  },
  { additionalProperties: true },
);

export const Rule = Type.Object({
  id: Type.Integer(),
  device_id: NullableId(),
  zone_id: NullableId(),
  metric: Type.String(),
  operator: Operator,
  threshold: Type.Number(),
  severity: Severity,
  message: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
  created_at: IsoTime('Created'),
  updated_at: IsoTime('Last changed'),
});

const RuleFields = {
  device_id: Type.Optional(RefInput('The one device this rule watches (or zone_id)')),
  zone_id: Type.Optional(RefInput('Every device of this zone (or device_id)')),
  severity: Type.Optional(Severity),
  message: Type.Optional(
    NullableText(
      500,
      'Alert text; placeholders {device_code} {device_name} {metric} {value} {operator} {threshold} {severity}',
    ),
  ),
};

export const RuleCreate = Type.Object(
  {
    metric: Metric,
    operator: Operator,
    threshold: Type.Number({ minimum: -1e12, maximum: 1e12 }),
    ...RuleFields,
  },
  { additionalProperties: true },
);

export const RuleUpdate = Type.Object(
  {
    metric: Type.Optional(Metric),
    operator: Type.Optional(Operator),
    threshold: Type.Optional(Type.Number({ minimum: -1e12, maximum: 1e12 })),
    ...RuleFields,
  },
  { additionalProperties: true },
);

export const ReadingsBody = Type.Object(
  {
    readings: Type.Array(Type.Unknown(), {
      minItems: 1,
      maxItems: MAX_READINGS_PER_CALL,
      description:
        'Up to 1000 of {device_code, metric, value, recorded_at?}; each is checked on its own. ' +
        'recorded_at: YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601; default: when received.',
    }),
  },
  { additionalProperties: true },
);

const FieldErrors = Type.Array(Type.Object({ field: Type.String(), message: Type.String() }));

export const ReadingsAnswer = Type.Object({
  data: Type.Object({
    accepted: Type.Integer(),
    rejected: Type.Integer(),
    results: Type.Array(
      Type.Object({
        index: Type.Integer({ description: 'Position in the request' }),
        status: Type.Union([Type.Literal('accepted'), Type.Literal('rejected')]),
        reading_id: Type.Optional(Type.Integer()),
        alert_ids: Type.Optional(Type.Array(Type.Integer(), { description: 'Alerts this reading raised' })),
        errors: Type.Optional(FieldErrors),
      }),
    ),
  }),
});

export const HeartbeatBody = Type.Object({ device_code: DeviceCode }, { additionalProperties: true });

export const Alert = Type.Object({
  id: Type.Integer(),
  rule_id: Type.Integer(),
  device_id: Type.Integer(),
  device_code: Type.String(),
  zone_id: NullableId(),
  metric: Type.String(),
  value: Type.Number(),
  threshold: Type.Number(),
  operator: Type.String(),
  severity: Type.String(),
  message: Type.String(),
  recorded_at: IsoTime('When the reading was taken'),
  created_at: IsoTime('When the alert was raised'),
});

export const Reading = Type.Object({
  id: Type.Integer(),
  metric: Type.String(),
  value: Type.Number(),
  recorded_at: IsoTime('When the reading was taken'),
  received_at: IsoTime('When Furrow received it'),
});
