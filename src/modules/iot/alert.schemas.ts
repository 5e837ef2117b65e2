// Alerts on the wire.
import { Type } from 'typebox';
import { Id, IsoTime, NullableId, NullableIsoTime } from '../../platform/resource/fields.js';

const Status = Type.Union([Type.Literal('active'), Type.Literal('resolved')], {
  description: 'active, or resolved once readings are back on the normal side',
});
const Severity = Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')], {
  description: 'info, warning or critical',
});

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
  status: Status,
  recorded_at: IsoTime('When the reading was taken'),
  created_at: IsoTime('When the alert was raised'),
  resolved_at: NullableIsoTime('When it was resolved; null while active'),
  acknowledged_at: NullableIsoTime('When someone first acknowledged it; null until then'),
  acknowledged_by: NullableId('The user who acknowledged it'),
  acknowledged_by_name: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'That user’s name',
  }),
});

/** The filters of the alert list, next to page and pageLimit. */
export const AlertQuery = Type.Object({
  device_id: Type.Optional(Id('Only alerts of this device')),
  status: Type.Optional(Status),
  severity: Type.Optional(Severity),
  acknowledged: Type.Optional(
    Type.Boolean({ description: 'true: only acknowledged alerts; false: only those not acknowledged yet' }),
  ),
});
