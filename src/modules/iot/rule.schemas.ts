// Threshold rules on the wire: the answer, create and change.
import { Type } from 'typebox';
import { IsoTime, NullableId, NullableText, RefInput } from '../../platform/resource/fields.js';

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
export const Rule = Type.Object({
  id: Type.Integer(),
  device_id: NullableId(),
  zone_id: NullableId(),
  metric: Type.String(),
  operator: Operator,
  threshold: Type.Number(),
  severity: Severity,
  message: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
  clear_threshold: Type.Unsafe<number | null>({
    type: ['number', 'null'],
    description: 'An active alert resolves once a reading is back past this; null: the threshold itself',
  }),
  min_duration_seconds: Type.Integer({
    description: 'How long the value must stay beyond the threshold before an alert is raised; 0: at once',
  }),
  created_at: IsoTime('Created'),
  updated_at: IsoTime('Last changed'),
});

const ClearThreshold = Type.Unsafe<number | null>({
  type: ['number', 'null'],
  minimum: -1e12,
  maximum: 1e12,
  description:
    'Back to normal: an active alert resolves with the first reading past it (for gt, a value <= it; ' +
    'gte, < it; lt, >= it; lte, > it). On the normal side of the threshold or equal to it ' +
    '(for gt and gte at most the threshold, for lt and lte at least). null (default): the threshold itself',
});
const MinDuration = Type.Integer({
  minimum: 0,
  maximum: 86_400,
  description:
    'Seconds the value must stay beyond the threshold before an alert is raised (0 to 86400, default 0): ' +
    'the alert comes with the first reading still beyond that long after the breach began',
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
  clear_threshold: Type.Optional(ClearThreshold),
  min_duration_seconds: Type.Optional(MinDuration),
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
