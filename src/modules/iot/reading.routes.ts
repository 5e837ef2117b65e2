import { action, subList } from '../../platform/resource/actions.js';
import { toIngestionAnswer } from './reading.presenter.js';
import {
  DeviceReadingFilters,
  MAX_SERIES_BUCKETS,
  Reading,
  ReadingsAnswer,
  ReadingsBody,
  SeriesPoint,
  SeriesQuery,
} from './reading.schemas.js';
import { listDeviceReadings, receiveReadings } from './reading.service.js';
import { deviceReadingSeries } from './reading-series.service.js';

export const readingsRoute = action({
  tag: 'iot',
  operationId: 'ingestReadings',
  path: '/api/iot/readings',
  summary: 'Send sensor readings',
  description:
    'Up to 1000 readings in one call, stored in one transaction. Each reading is accepted or ' +
    'rejected on its own (unknown device, bad metric, bad value, bad time) and every accepted one is ' +
    'a heartbeat of its device. A reading that crosses a rule’s threshold from the normal side raises ' +
    'an alert and an iot.alert.raised webhook. HTTP 200 when at least one reading is accepted; 422 ' +
    'in the error shape when none is.',
  body: ReadingsBody,
  answer: ReadingsAnswer,
  errors: [401, 422],
  run: async (ctx, { body, language }) =>
    toIngestionAnswer(await receiveReadings(ctx, body.readings), language),
});

export const deviceReadingsRoute = subList({
  tag: 'iot',
  operationId: 'listDeviceReadings',
  path: '/api/iot/devices/:id/readings',
  idDescription: 'Device id',
  summary: 'A device’s stored readings, newest first',
  description:
    'Filter with metric, from and to (YYYY-MM-DD HH:MM:SS UTC or ISO 8601). Pages with page and ' +
    'pageLimit; no X-Total-Count (a device may have millions of readings).',
  query: DeviceReadingFilters,
  item: Reading,
  errors: [401, 404, 422],
  pagingHeaders: false,
  headers: { 'cache-control': 'no-store' },
  list: listDeviceReadings,
});

export const deviceReadingSeriesRoute = subList({
  tag: 'iot',
  operationId: 'getDeviceReadingSeries',
  path: '/api/iot/devices/:id/readings/series',
  idDescription: 'Device id',
  summary: 'One metric of a device bucket by bucket, for charts',
  description:
    '[{t, min, max, avg, count}] per bucket of 1 minute, 1 hour or 1 day (bucket, default 1h), oldest ' +
    'first, only buckets that hold readings; t is the bucket’s start. The buckets are those holding ' +
    'from through to (YYYY-MM-DD HH:MM:SS UTC or ISO 8601); to defaults to now, from to 24 hours (1m), ' +
    `7 days (1h) or 30 days (1d) before to. At most ${MAX_SERIES_BUCKETS} buckets: a longer span is a ` +
    '422 naming from. Read from roll-ups kept as readings arrive: 1-minute buckets go with the raw ' +
    'readings after IOT_RAW_RETENTION_DAYS, hourly and daily ones are kept forever.',
  query: SeriesQuery,
  item: SeriesPoint,
  errors: [401, 404, 422],
  paging: false,
  headers: { 'cache-control': 'no-store' },
  list: deviceReadingSeries,
});
