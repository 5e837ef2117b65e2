// Every IoT route, as the one plugin the app registers. The order is the order of /openapi.json.
import type { FastifyInstance } from 'fastify';
import { routes } from '../../platform/resource/actions.js';
import type { ResourceDeps } from '../../platform/resource/routes.js';
import { alertRoutes } from './alert.routes.js';
import { deviceRoutes, heartbeatRoute } from './device.routes.js';
import { lorawanRoutes } from './lorawan.routes.js';
import { mqttSourceRoutes } from './mqtt-source.routes.js';
import type { MqttSourceDeps } from './mqtt-source.service.js';
import { deviceReadingSeriesRoute, deviceReadingsRoute, readingsRoute } from './reading.routes.js';
import { ruleRoutes } from './rule.routes.js';

export async function iotRoutes(
  app: FastifyInstance,
  options: { deps: ResourceDeps & MqttSourceDeps },
): Promise<void> {
  await app.register(deviceRoutes, options);
  await app.register(ruleRoutes, options);
  await app.register(routes(readingsRoute, heartbeatRoute), options);
  await app.register(alertRoutes, options);
  await app.register(routes(deviceReadingsRoute, deviceReadingSeriesRoute), options);
  await app.register(mqttSourceRoutes, options);
  await app.register(lorawanRoutes, options);
}
