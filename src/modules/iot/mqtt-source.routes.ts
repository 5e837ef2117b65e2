// /api/iot/mqtt-sources: owners declare the MQTT brokers the worker role subscribes to.
import type { FastifyInstance } from 'fastify';
import { type ResourceDeps, resourceRoutes } from '../../platform/resource/routes.js';
import { MqttSource, MqttSourceCreate, MqttSourceUpdate } from './mqtt-source.schemas.js';
import { type MqttSourceDeps, mqttSourceService } from './mqtt-source.service.js';

export async function mqttSourceRoutes(
  app: FastifyInstance,
  { deps }: { deps: ResourceDeps & MqttSourceDeps },
): Promise<void> {
  await app.register(
    resourceRoutes({
      tag: 'iot',
      noun: 'MQTT source',
      name: 'MqttSource',
      path: '/api/iot/mqtt-sources',
      ownerOnly: true,
      description:
        'A broker the worker role subscribes to (QoS 1, one worker at a time); its messages become ' +
        'readings. Owners only. The password is stored encrypted and never answered (has_password).',
      schemas: { item: MqttSource, create: MqttSourceCreate, update: MqttSourceUpdate },
      service: mqttSourceService(deps),
    }),
    { deps },
  );
}
