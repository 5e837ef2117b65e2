// Metrics for Prometheus, as an operator meets them: `furrow serve` with METRICS_PORT serves GET
// /metrics on a port of its own; API requests, a webhook delivery to a real HTTPS receiver, readings
// and an alert move the counters, scraped over HTTP. Without METRICS_PORT the process listens on its
// API port only. The queue depth's bounded count is checked against a real queue.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { after, before, it } from 'node:test';
import { countDueDeliveries } from '../src/modules/webhooks/delivery-metrics.js';
import { client, TEST_SECRET_KEY_HEX } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken } from './support/factories.js';
import {
  freePort,
  migrateAndCreateTenant,
  type ServerProcess,
  startFurrow,
  startFurrowWorker,
} from './support/processes.js';
import { webhookFixture } from './support/webhook-fixture.js';
import { type Receiver, startReceiver } from './support/webhook-receiver.js';

/** The TCP ports a process listens on, read from /proc (its socket inodes, then the LISTEN rows). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is field 1 (addr:PORT in hex), st is field 3 (0A: LISTEN), inode is field 9.
      if (fields[3] === '0A' && inodes.has(fields[9]!))
        ports.add(Number.parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** The value of one sample of the text format, e.g. sample(text, 'x_total{outcome="succeeded"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

forEachDialect('metrics on METRICS_PORT from a real furrow serve', (database) => {
  let receiver: Receiver;
  let env: Record<string, string>;
  const owner = { username: 'owner', password: 'metrics-owner-pw-1' };
  let server: ServerProcess | undefined;

  before(async () => {
    receiver = await startReceiver();
    env = {
      DATABASE_URL: database.url,
      FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX,
      FURROW_DEMO: 'off',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      WEBHOOK_CA_FILE: receiver.caFile,
      LOG_LEVEL: 'warn',
    };
    await migrateAndCreateTenant(env, 'metricsfarm', owner);
  });
  after(async () => {
    await server?.stop();
    await receiver.close();
  });

  it('is off by default: the process listens on its API port only', async () => {
    server = await startFurrow(['serve'], { env });
    try {
      const apiPort = Number(new URL(server.url).port);
      assert.deepEqual(listeningPorts(server.child.pid!), [apiPort]);
    } finally {
      assert.equal(await server.stop(), 0);
      server = undefined;
    }
  });

  it('serves /metrics on its own port; requests, a delivery, readings and an alert move the counters', async () => {
    const metricsPort = await freePort();
    server = await startFurrow(['serve'], { env: { ...env, METRICS_PORT: String(metricsPort) } });
    const apiPort = Number(new URL(server.url).port);
    assert.deepEqual(
      listeningPorts(server.child.pid!),
      [apiPort, metricsPort].sort((a, b) => a - b),
    );
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const scrape = async () => {
      const res = await fetch(metricsUrl);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    const before = await scrape();
    assert.equal(sample(before, 'furrow_iot_readings_ingested_total'), 0);
    assert.ok(sample(before, 'process_cpu_user_seconds_total')! >= 0, 'default process metrics');
    assert.equal(sample(before, 'furrow_webhook_queue_depth'), 0);
    assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status, 404);
    assert.equal((await fetch(metricsUrl, { method: 'POST' })).status, 405);
    // The API port does not answer the metrics.
    assert.equal((await fetch(`${server.url}/metrics`)).status, 404);

    const api = client(server.url, await loginToken(server.url, 'metricsfarm', owner));
    const endpoint = await api.post('/api/webhooks', {
      json: { url: `${receiver.origin}/metrics-hook`, events: ['iot.alert.raised'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const epId = endpoint.body.data.id as string;
    assert.equal((await api.get(`/api/webhooks/${epId}`)).status, 200);
    assert.equal((await api.get('/api/webhooks/ep_0000000000000000000000')).status, 404);
    const device = await api.post('/api/iot/devices', { json: { code: 'm-1' } });
    assert.equal(device.status, 201, device.text);
    const rule = await api.post('/api/iot/rules', {
      json: {
        metric: 'temperature',
        operator: 'gt',
        threshold: 30,
        severity: 'critical',
        device_id: device.body[0].id,
      },
    });
    assert.equal(rule.status, 201, rule.text);
    const readings = await api.post('/api/iot/readings', {
      json: {
        readings: [
          { device_code: 'm-1', metric: 'temperature', value: 25 },
          { device_code: 'm-1', metric: 'temperature', value: 35 },
          { device_code: 'nobody', metric: 'temperature', value: 35 },
        ],
      },
    });
    assert.equal(readings.status, 200, readings.text);
    await receiver.waitForRequests(1);

    const after = await waitFor('the delivery to be counted', async () => {
      const text = await scrape();
      return sample(text, 'furrow_webhook_deliveries_total{outcome="succeeded"}') === 1 ? text : undefined;
    });
    assert.equal(sample(after, 'furrow_iot_readings_ingested_total'), 2); // the unknown device's is not stored
    assert.equal(sample(after, 'furrow_iot_alerts_raised_total{severity="critical"}'), 1);
    assert.equal(sample(after, 'furrow_webhook_delivery_latency_seconds_count'), 1);
    const latency = sample(after, 'furrow_webhook_delivery_latency_seconds_sum')!;
    assert.ok(latency > 0 && latency < 20, String(latency));
    const http = (route: string, method: string, status: number) =>
      sample(
        after,
        `furrow_http_request_duration_seconds_count{method="${method}",route="${route}",status_code="${status}"}`,
      );
    assert.equal(http('/api/iot/readings', 'POST', 200), 1);
    assert.equal(http('/api/webhooks', 'POST', 201), 1);
    // Route patterns, never the raw URL: both detail reads are one route, by status.
    assert.equal(http('/api/webhooks/:id', 'GET', 200), 1);
    assert.equal(http('/api/webhooks/:id', 'GET', 404), 1);
    assert.ok(http('/api/auth/login', 'POST', 200)! >= 1);
    assert.ok(!after.includes(epId), 'no endpoint id in any label');
    assert.ok(!after.includes('ep_0000000000000000000000'));
    const infBucket = after
      .split('\n')
      .find(
        (l) =>
          l.startsWith('furrow_http_request_duration_seconds_bucket{') &&
          l.includes('le="+Inf"') &&
          l.includes('route="/api/iot/readings"'),
      );
    assert.ok(infBucket?.endsWith(' 1'), infBucket);
    assert.equal(await server.stop(), 0);
    server = undefined;
  });

  if (database.dialect === 'postgres') {
    it('a worker process, which has no API port, serves its metrics too', async () => {
      const metricsPort = await freePort();
      const worker = await startFurrowWorker([], {
        env: { ...env, LOG_LEVEL: 'info', METRICS_PORT: String(metricsPort) },
      });
      try {
        assert.deepEqual(listeningPorts(worker.child.pid!), [metricsPort]);
        const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        assert.equal(res.status, 200);
        const text = await res.text();
        assert.equal(sample(text, 'furrow_webhook_queue_depth'), 0);
        assert.match(text, /^# TYPE furrow_webhook_deliveries_total counter$/m);
      } finally {
        assert.equal(await worker.stop(), 0);
      }
    });
  }
});

forEachDialect('the queue depth count', (database) => {
  const f = webhookFixture(database);

  it('counts due deliveries of every tenant, up to its limit, and none once delivered', async () => {
    await f.endpoint();
    await f.endpoint();
    for (let i = 0; i < 3; i++) await f.emit('harvest.batch.created', { harvest_record_id: i });
    const db = f.t.database.db;
    const now = f.t.clock.now();
    assert.equal(await countDueDeliveries(db, now, 100_000), 6);
    assert.equal(await countDueDeliveries(db, now, 4), 4);
    assert.equal(await countDueDeliveries(db, now - 1, 100_000), 0); // not due yet
    await f.worker.drain();
    assert.equal(await countDueDeliveries(db, f.t.clock.now(), 100_000), 0);
  });
});
