import { Type } from 'typebox';
import { action } from '../../platform/resource/actions.js';
import { resourceRoutes } from '../../platform/resource/routes.js';
import { Device, DeviceCreate, DeviceUpdate, HeartbeatBody } from './device.schemas.js';
import { deviceService, recordHeartbeat } from './device.service.js';

export const deviceRoutes = resourceRoutes({
  tag: 'iot',
  noun: 'IoT device',
  name: 'Device',
  path: '/api/iot/devices',
  description: 'Answers carry status (online/offline) and last_heartbeat.',
  schemas: { item: Device, create: DeviceCreate, update: DeviceUpdate },
  service: deviceService,
});

export const heartbeatRoute = action({
  tag: 'iot',
  operationId: 'sendHeartbeat',
  path: '/api/iot/heartbeats',
  summary: 'Tell Furrow a device is alive',
  description: 'Brings an offline device back online. Answers the device as an array of one.',
  body: HeartbeatBody,
  answer: Type.Array(Device, { maxItems: 1 }),
  errors: [401, 422],
  run: async (ctx, { body }) => [await recordHeartbeat(ctx, body.device_code)],
});
