import { action, subList } from '../../platform/resource/actions.js';
import { toIngestionAnswer } from './reading.presenter.js';
import { DeviceReadingFilters, Reading, ReadingsAnswer, ReadingsBody } from './reading.schemas.js';
import { listDeviceReadings, receiveReadings } from './reading.service.js';

export const readingsRoute = action({
  tag: 'iot',
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
