// Sensor readings on the wire: a batch sent in, the answer per reading, and a stored reading.
import { Type } from 'typebox';
import { IsoTime, TimestampInput } from '../../platform/resource/fields.js';

export const MAX_READINGS_PER_CALL = 1000;

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
        resolved_alert_ids: Type.Optional(
          Type.Array(Type.Integer(), {
            description: 'Active alerts this reading resolved (back past their rule’s clear threshold)',
          }),
        ),
        errors: Type.Optional(FieldErrors),
      }),
    ),
  }),
});

export const Reading = Type.Object({
  id: Type.Integer(),
  metric: Type.String(),
  value: Type.Number(),
  recorded_at: IsoTime('When the reading was taken'),
  received_at: IsoTime('When Furrow received it'),
});

/** The filters of a device's readings, next to page and pageLimit. */
export const DeviceReadingFilters = {
  metric: Type.Optional(Type.String({ maxLength: 64 })),
  from: Type.Optional(TimestampInput('Readings taken at or after')),
  to: Type.Optional(TimestampInput('Readings taken at or before')),
};

/** At most this many buckets in one series answer. */
export const MAX_SERIES_BUCKETS = 1500;

/** The query of a device's readings series. */
export const SeriesQuery = {
  metric: Type.String({ minLength: 1, maxLength: 64, description: 'The metric charted (required)' }),
  bucket: Type.Optional(
    Type.Union([Type.Literal('1m'), Type.Literal('1h'), Type.Literal('1d')], {
      description: 'Bucket size: 1 minute, 1 hour or 1 day (default 1h)',
    }),
  ),
  from: Type.Optional(
    TimestampInput(
      'The bucket holding this instant comes first; default: to less 24 hours (1m), 7 days (1h) or 30 days (1d)',
    ),
  ),
  to: Type.Optional(TimestampInput('The bucket holding this instant comes last; default: now')),
};

export const SeriesPoint = Type.Object({
  t: IsoTime('The start of the bucket'),
  min: Type.Number(),
  max: Type.Number(),
  avg: Type.Number({ description: 'The mean of the bucket’s readings' }),
  count: Type.Integer({ description: 'How many readings the bucket holds' }),
});
