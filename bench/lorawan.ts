// LoRaWAN ingestion: ChirpStack v4 `up` events (the test fixture: five numeric values each, a new
// deduplicationId and time each) posted with an API key at a steady rate, as a network server
// does, to a device that has a threshold rule. Reports the rate served and the p99 latency.
import { randomUUID } from 'node:crypto';
import type { DialectName } from '../src/platform/db/types.js';
import { lorawanFixture } from '../test/support/lorawan.js';
import type { Figure, Settings } from './figures.js';
import { deploy, login, ok } from './lib/furrow.js';
import { load } from './lib/load.js';
import { cpuSeconds, ownCpuSeconds, postgresCpuSeconds } from './lib/system.js';

const FIGURE = 'ChirpStack up events at a steady 200/s (5 readings each)';
const RATE = 200;
const CONNECTIONS = 20;
const DEV_EUI = '0004a30b00f1c2d3';

export async function benchLorawan(dialect: DialectName, settings: Settings): Promise<Figure[]> {
  if (!settings.wanted(FIGURE)) return [];
  const deployment = await deploy(dialect);
  try {
    const server = await deployment.api();
    const api = await login(server.url);
    const device = await ok(api.call('POST', '/api/iot/devices', { code: 'lora-1', dev_eui: DEV_EUI }));
    await ok(
      api.call('POST', '/api/iot/rules', {
        metric: 'temperature',
        operator: 'gt',
        threshold: 40,
        severity: 'warning',
        device_id: device[0].id,
      }),
    );
    const key = (await ok(api.call('POST', '/api/auth/api-keys', { name: 'ChirpStack', role: 'staff' }))).data
      .key as string;
    const event = lorawanFixture('chirpstack-v4-up');
    const freshBody = () => {
      event.deduplicationId = randomUUID();
      event.time = new Date().toISOString();
      return JSON.stringify(event);
    };
    const run = await load({
      urls: [`${server.url}/api/iot/ingest/chirpstack?event=up`],
      method: 'POST',
      body: freshBody(),
      freshBody,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      connections: CONNECTIONS,
      rate: RATE,
      durationS: settings.latencyS,
      warmupS: settings.warmupS,
      cpu: {
        furrow: () => cpuSeconds(server.child.pid!),
        'load generator': ownCpuSeconds,
        ...(dialect === 'postgres' ? { postgres: postgresCpuSeconds } : {}),
      },
    });
    return [
      {
        section: 'lorawan',
        dialect,
        name: FIGURE,
        value: run.rps,
        unit: 'req/s',
        p99Ms: run.p99Ms,
        target: { p99AtMost: 100 },
        cpu: run.cpu,
      },
    ];
  } finally {
    await deployment.close();
  }
}
