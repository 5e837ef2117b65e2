// LoRaWAN ingestion: ChirpStack v4 `up` events (the test fixture: five numeric values each, a new
// deduplicationId and time each) posted with an API key at a steady rate, as a network server
// does, spread over 100 devices of a zone with a threshold rule (one device's events apply one
// after the other, so a single device would measure its row lock). Reports the rate served and the
// p99 latency.
import { randomUUID } from 'node:crypto';
import type { DialectName } from '../src/platform/db/types.js';
import { lorawanFixture } from '../test/support/lorawan.js';
import type { Figure, Settings } from './figures.js';
import { deploy, login, ok } from './lib/furrow.js';
import { load } from './lib/load.js';
import { cpuSeconds, ownCpuSeconds, postgresCpuSeconds } from './lib/system.js';

const RATES = [100, 200];
const figureName = (rate: number) =>
  `ChirpStack up events at a steady ${rate}/s (100 devices, 5 readings each)`;
const CONNECTIONS = 20;
const DEVICES = 100;
const devEui = (i: number) => `0004a30b0000${i.toString(16).padStart(4, '0')}`;

export async function benchLorawan(dialect: DialectName, settings: Settings): Promise<Figure[]> {
  const rates = RATES.filter((rate) => settings.wanted(figureName(rate)));
  if (rates.length === 0) return [];
  const deployment = await deploy(dialect);
  try {
    const server = await deployment.api();
    const api = await login(server.url);
    const zone = await ok(api.call('POST', '/api/zones', { name: 'LoRa field', farm_id: 1 }));
    for (let i = 0; i < DEVICES; i++) {
      await ok(
        api.call('POST', '/api/iot/devices', { code: `lora-${i}`, dev_eui: devEui(i), zone_id: zone[0].id }),
      );
    }
    await ok(
      api.call('POST', '/api/iot/rules', {
        metric: 'temperature',
        operator: 'gt',
        threshold: 40,
        severity: 'warning',
        zone_id: zone[0].id,
      }),
    );
    const key = (await ok(api.call('POST', '/api/auth/api-keys', { name: 'ChirpStack', role: 'staff' }))).data
      .key as string;
    const event = lorawanFixture('chirpstack-v4-up');
    let sent = 0;
    const freshBody = () => {
      event.deviceInfo.devEui = devEui(sent++ % DEVICES);
      event.deduplicationId = randomUUID();
      event.time = new Date().toISOString();
      return JSON.stringify(event);
    };
    const figures: Figure[] = [];
    for (const rate of rates) {
      const run = await load({
        urls: [`${server.url}/api/iot/ingest/chirpstack?event=up`],
        method: 'POST',
        body: freshBody(),
        freshBody,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        connections: CONNECTIONS,
        rate,
        durationS: settings.latencyS,
        warmupS: settings.warmupS,
        cpu: {
          furrow: () => cpuSeconds(server.child.pid!),
          'load generator': ownCpuSeconds,
          ...(dialect === 'postgres' ? { postgres: postgresCpuSeconds } : {}),
        },
      });
      figures.push({
        section: 'lorawan',
        dialect,
        name: figureName(rate),
        value: run.rps,
        unit: 'req/s',
        p99Ms: run.p99Ms,
        target: { p99AtMost: 100 },
        cpu: run.cpu,
      });
    }
    return figures;
  } finally {
    await deployment.close();
  }
}
