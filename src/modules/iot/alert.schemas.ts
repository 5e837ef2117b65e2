// Alerts on the wire.
import { Type } from 'typebox';
import { Id, IsoTime, NullableId } from '../../platform/resource/fields.js';

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

/** The filter of the alert list, next to page and pageLimit. */
export const AlertQuery = Type.Object({ device_id: Type.Optional(Id('Only alerts of this device')) });
