// API throughput against its ceiling (a bare Fastify route answering the same bytes from memory),
// IoT ingestion, and the peak memory of the API process, on one dialect.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { bulkWorkTimeouts, openDatabase } from '../src/platform/db/database.js';
import type { DialectName } from '../src/platform/db/types.js';
import { freePort } from '../test/support/processes.js';
import type { Figure, Settings } from './figures.js';
import { deploy, login, ok, tenantIds } from './lib/furrow.js';
import { type LoadResult, load } from './lib/load.js';
import { seedCrops, seedTasks } from './lib/seed.js';
import { cpuSeconds, ownCpuSeconds, peakRssMb, postgresCpuSeconds } from './lib/system.js';

interface Ceiling {
  url: string;
  pid: number;
  /** The ceiling answers `path` with this status, these headers and this body. */
  set(path: string, answer: { status: number; headers: Record<string, string>; text: string }): Promise<void>;
  stop(): void;
}

async function startCeiling(): Promise<Ceiling> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'ceiling-server.ts')], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'inherit',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${url}/c/ping`);
      break;
    } catch (err) {
      if (i > 100) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    pid: child.pid!,
    async set(path, answer) {
      const headers = Object.fromEntries(
        Object.entries(answer.headers).filter(
          ([name]) => !['content-length', 'date', 'connection', 'keep-alive'].includes(name),
        ),
      );
      const res = await fetch(`${url}/set`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path, body: answer.text, status: answer.status, headers }),
      });
      if (!res.ok) throw new Error(`ceiling /set: ${res.status}`);
    },
    stop: () => child.kill('SIGTERM'),
  };
}

const CONNECTIONS = 50;
const INGESTION = 'IoT readings ingested (batches of 100)';

interface Measurement {
  name: string;
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  /** Every request with a new Idempotency-Key: the key's claim and kept answer on each create. */
  idempotencyKey?: boolean;
  target: number;
}

const MEASUREMENTS: Measurement[] = [
  { name: 'crop detail', path: '/api/crop/crop/1', target: 0.6 },
  { name: 'crop list (pageLimit 20)', path: '/api/crop/crop?page=0&pageLimit=20', target: 0.5 },
  { name: 'season detail', path: '/api/crop/season/1', target: 0.6 },
  {
    name: 'task list, date filter',
    path: '/api/diary/production?from_date=2020-01-02&to_date=2020-01-02&pageLimit=20',
    target: 0.5,
  },
  {
    name: 'crop create',
    path: '/api/crop/crop',
    method: 'POST',
    body: JSON.stringify({
      name: 'Bench crop',
      code: 'B',
      price: 1,
      status: 1,
      crop_type: 1,
      category_id: 1,
    }),
    target: 0.3,
  },
  {
    name: 'crop create, Idempotency-Key',
    path: '/api/crop/crop',
    method: 'POST',
    body: JSON.stringify({
      name: 'Bench crop',
      code: 'B',
      price: 1,
      status: 1,
      crop_type: 1,
      category_id: 1,
    }),
    idempotencyKey: true,
    target: 0.3,
  },
];

export async function benchApi(dialect: DialectName, settings: Settings): Promise<Figure[]> {
  const figures: Figure[] = [];
  if (!MEASUREMENTS.some((m) => settings.wanted(m.name)) && !settings.wanted(INGESTION)) return figures;
  const deployment = await deploy(dialect);
  const ceiling = await startCeiling();
  try {
    const server = await deployment.api();
    const api = await login(server.url);
    // Enough rows for the list to page and the date filter to fill a page.
    const { tenantId, ownerId } = await tenantIds(deployment.databaseUrl);
    const handle = openDatabase(deployment.databaseUrl, { maxConnections: 2, timeouts: bulkWorkTimeouts() });
    await seedCrops(handle.db, tenantId, 0, settings.apiRows);
    await seedTasks(handle.db, tenantId, ownerId, 0, settings.apiRows);
    await handle.close();

    const auth = { authorization: `Bearer ${api.token}` };
    const cpu = {
      furrow: () => cpuSeconds(server.child.pid!),
      'load generator': ownCpuSeconds,
      ...(dialect === 'postgres' ? { postgres: postgresCpuSeconds } : {}),
    };
    const ceilingCpu = { furrow: () => cpuSeconds(ceiling.pid), 'load generator': ownCpuSeconds };
    for (const m of MEASUREMENTS) {
      if (!settings.wanted(m.name)) continue;
      const method = m.method ?? 'GET';
      const headers = { ...auth, ...(m.body ? { 'content-type': 'application/json' } : {}) };
      const sample = await api.call(method, m.path, m.body ? JSON.parse(m.body) : undefined);
      if (sample.status >= 300) throw new Error(`${m.path}: ${sample.status} ${sample.text}`);
      await ceiling.set(m.path, sample);
      const common = {
        method,
        headers,
        connections: CONNECTIONS,
        durationS: settings.durationS,
        warmupS: settings.warmupS,
      };
      // Ceiling and Furrow in turns; the best of each counts (noise on a shared machine only slows).
      let top: LoadResult | undefined;
      let run: LoadResult | undefined;
      for (let round = 0; round < settings.rounds; round++) {
        const t = await load({
          ...common,
          urls: [`${ceiling.url}/c${m.path}`],
          body: m.body,
          cpu: ceilingCpu,
        });
        const freshHeaders = m.idempotencyKey ? () => ({ 'idempotency-key': randomUUID() }) : undefined;
        const r = await load({
          ...common,
          urls: [`${server.url}${m.path}`],
          body: m.body,
          cpu,
          freshHeaders,
        });
        if (!top || t.rps > top.rps) top = t;
        if (!run || r.rps > run.rps) run = r;
      }
      if (!top || !run) throw new Error('rounds must be at least 1');
      figures.push({
        section: 'api',
        dialect,
        name: m.name,
        value: run.rps,
        unit: 'req/s',
        p99Ms: run.p99Ms,
        baseline: { name: 'bare Fastify', value: top.rps },
        ratio: run.rps / top.rps,
        ...(dialect === 'sqlite' ? { target: { ratio: m.target } } : {}),
        cpu: run.cpu,
        baselineCpu: top.cpu,
      });
    }

    if (settings.wanted(INGESTION)) {
      await ok(api.call('POST', '/api/iot/devices', { code: 'bench-1', name: 'Bench sensor' }));
      const readings = JSON.stringify({
        readings: Array.from({ length: 100 }, (_, i) => ({
          device_code: 'bench-1',
          metric: 'temperature',
          value: 20 + (i % 10),
        })),
      });
      const run = await load({
        urls: [`${server.url}/api/iot/readings`],
        method: 'POST',
        body: readings,
        headers: { ...auth, 'content-type': 'application/json' },
        connections: CONNECTIONS,
        durationS: settings.durationS,
        warmupS: settings.warmupS,
        cpu,
      });
      figures.push({
        section: 'ingestion',
        dialect,
        name: INGESTION,
        value: run.rps * 100,
        unit: 'readings/s',
        p99Ms: run.p99Ms,
        ...(dialect === 'sqlite' ? { target: { atLeast: 20_000 } } : {}),
        cpu: run.cpu,
      });
    }

    figures.push({
      section: 'memory',
      dialect,
      name: 'peak RSS of furrow serve --role api (API and ingestion runs)',
      value: peakRssMb(server.child.pid!),
      unit: 'MB',
      target: { atMost: 200 },
    });
  } finally {
    ceiling.stop();
    await deployment.close();
  }
  return figures;
}
