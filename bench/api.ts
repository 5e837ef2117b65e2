// API throughput against its ceiling (a bare Fastify route answering the same bytes from memory) and,
// on PostgreSQL, against a second ceiling (a Fastify + pg handler doing the same work by hand), IoT
// ingestion, and the peak memory of the API process, on one dialect.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { bulkWorkTimeouts, openDatabase } from '../src/platform/db/database.js';
import type { DialectName } from '../src/platform/db/types.js';
import { freePort } from '../test/support/processes.js';
import type { Figure, Settings } from './figures.js';
import { type Answer, callApi, deploy, login, ok, tenantIds } from './lib/furrow.js';
import { type LoadResult, load } from './lib/load.js';
import { analyzeLikeAutovacuum, seedCrops, seedTasks } from './lib/seed.js';
import { cpuSeconds, ownCpuSeconds, peakRssMb, postgresCpuSeconds } from './lib/system.js';

interface Ceiling {
  url: string;
  pid: number;
  /** The ceiling answers `method path` with this status, these headers and this body. */
  set(
    method: string,
    path: string,
    answer: { status: number; headers: Record<string, string>; text: string },
  ): Promise<void>;
  stop(): void;
}

/** A server of bench/ started with `env`, once it answers `ping`. */
async function startServer(file: string, ping: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file)], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: 'inherit',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${url}${ping}`);
      break;
    } catch (err) {
      if (i > 100) {
        child.kill('SIGTERM');
        throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, child };
}

async function startCeiling(): Promise<Ceiling> {
  const { url, child } = await startServer('ceiling-server.ts', '/c/ping');
  return {
    url,
    pid: child.pid!,
    async set(method, path, answer) {
      const headers = Object.fromEntries(
        Object.entries(answer.headers).filter(
          ([name]) => !['content-length', 'date', 'connection', 'keep-alive'].includes(name),
        ),
      );
      const res = await fetch(`${url}/set`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method, path, body: answer.text, status: answer.status, headers }),
      });
      if (!res.ok) throw new Error(`ceiling /set: ${res.status}`);
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/** Furrow's pool size on PostgreSQL for `furrow serve --role api` (src/cli/serve.ts). */
const FURROW_API_POOL = 10;

/**
 * The PostgreSQL ceiling (bench/pg-ceiling-server.ts): the routes' work written by hand with
 * Fastify and pg, on a pool of Furrow's size.
 */
async function startPgHandler(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  return startServer('pg-ceiling-server.ts', '/ping', {
    DATABASE_URL: databaseUrl,
    POOL_SIZE: String(FURROW_API_POOL),
  });
}

/** The answer headers that carry the same work as the body (versions, paging, where a record is). */
const CHECKED_HEADERS = ['etag', 'x-total-count', 'link', 'location', 'preference-applied'];

/**
 * Throws unless the pg handler answered as Furrow did: the same status, the same JSON after parsing
 * and the same checked headers. A create's new id (in its body and Location) is left out.
 */
function assertSameAnswer(name: string, furrow: Answer, handler: Answer, created: boolean): void {
  const comparable = (answer: Answer) => {
    const json =
      created && Array.isArray(answer.json) ? answer.json.map(({ id: _id, ...rest }) => rest) : answer.json;
    const headers = Object.fromEntries(
      CHECKED_HEADERS.filter((h) => answer.headers[h] !== undefined).map((h) => [
        h,
        created && h === 'location' ? answer.headers[h]?.replace(/\/\d+$/, '/{id}') : answer.headers[h],
      ]),
    );
    return { status: answer.status, json, headers };
  };
  const a = comparable(furrow);
  const b = comparable(handler);
  if (!isDeepStrictEqual(a, b)) {
    throw new Error(
      `${name}: the pg handler's answer differs from Furrow's\nFurrow: ${JSON.stringify(a)}\npg handler: ${JSON.stringify(b)}`,
    );
  }
}

const CONNECTIONS = 50;
const INGESTION = 'IoT readings ingested (batches of 100)';

interface Measurement {
  name: string;
  path: string;
  method?: 'GET' | 'POST' | 'PUT';
  body?: string;
  /** Every request with a new Idempotency-Key: the key's claim and kept answer on each create. */
  idempotencyKey?: boolean;
  /** Every request with If-Match naming the record's current ETag (as its first answer gave it). */
  ifMatch?: boolean;
  /** The path names `{id}`: requests go to this many of the newest crops in turn. */
  spread?: number;
  /** On SQLite, against the bytes ceiling. */
  target?: number;
  /** On PostgreSQL, also against the pg handler (bench/pg-ceiling-server.ts), with this target. */
  pgHandlerTarget?: number;
}

/** The crop every create figure sends (also bench/create-cost.ts). */
export const CROP_INPUT = JSON.stringify({
  name: 'Bench crop',
  code: 'B',
  price: 1,
  status: 1,
  crop_type: 1,
  category_id: 1,
});

const MEASUREMENTS: Measurement[] = [
  { name: 'crop detail', path: '/api/crop/crop/1', target: 0.6, pgHandlerTarget: 0.6 },
  {
    name: 'crop list (pageLimit 20)',
    path: '/api/crop/crop?page=0&pageLimit=20',
    target: 0.5,
    pgHandlerTarget: 0.6,
  },
  { name: 'season detail', path: '/api/crop/season/1', target: 0.5, pgHandlerTarget: 0.6 },
  {
    name: 'task list, date filter',
    path: '/api/diary/production?from_date=2020-01-02&to_date=2020-01-02&pageLimit=20',
    target: 0.4,
    pgHandlerTarget: 0.6,
  },
  {
    name: 'crop create',
    path: '/api/crop/crop',
    method: 'POST',
    body: CROP_INPUT,
    target: 0.3,
    pgHandlerTarget: 0.5,
  },
  {
    name: 'crop create, Idempotency-Key',
    path: '/api/crop/crop',
    method: 'POST',
    body: CROP_INPUT,
    idempotencyKey: true,
    target: 0.3,
  },
  // 50 crops in turn (`spread`), each changed to the same values every time, so that its ETag, and
  // with it If-Match, stays current: each request locks the row, reads and compares, and writes.
  {
    name: 'crop update, If-Match',
    path: '/api/crop/crop/{id}',
    method: 'PUT',
    body: CROP_INPUT,
    ifMatch: true,
    spread: 50,
    pgHandlerTarget: 0.5,
  },
];

export async function benchApi(dialect: DialectName, settings: Settings): Promise<Figure[]> {
  const figures: Figure[] = [];
  if (!MEASUREMENTS.some((m) => settings.wanted(m.name)) && !settings.wanted(INGESTION)) return figures;
  const deployment = await deploy(dialect);
  const ceiling = await startCeiling();
  let pgHandler: { url: string; child: ChildProcess } | undefined;
  try {
    const server = await deployment.api();
    const api = await login(server.url);
    // Enough rows for the list to page and the date filter to fill a page.
    const { tenantId, ownerId } = await tenantIds(deployment.databaseUrl);
    const handle = openDatabase(deployment.databaseUrl, { maxConnections: 2, timeouts: bulkWorkTimeouts() });
    await seedCrops(handle.db, tenantId, 0, settings.apiRows);
    await seedTasks(handle.db, tenantId, ownerId, 0, settings.apiRows);
    await handle.close();
    // PostgreSQL's statistics as autovacuum keeps them, within a minute of a burst of writes: the
    // seed's rows, then before each figure the rows the figures before it created (about 90,000
    // crops). The shared server may run without autovacuum, and a table that grew a hundredfold
    // unanalyzed kept plans made for its first thousand rows: crop updates fell to 50-64 req/s,
    // Furrow and the pg handler alike, until an ANALYZE.
    const analyze = async () => {
      if (dialect !== 'postgres') return;
      const stats = openDatabase(deployment.databaseUrl, { maxConnections: 1, timeouts: bulkWorkTimeouts() });
      try {
        await analyzeLikeAutovacuum(stats.db);
      } finally {
        await stats.close();
      }
    };
    if (dialect === 'postgres' && MEASUREMENTS.some((m) => m.pgHandlerTarget && settings.wanted(m.name))) {
      pgHandler = await startPgHandler(deployment.databaseUrl);
    }

    const auth = { authorization: `Bearer ${api.token}` };
    const cpu = {
      furrow: () => cpuSeconds(server.child.pid!),
      'load generator': ownCpuSeconds,
      ...(dialect === 'postgres' ? { postgres: postgresCpuSeconds } : {}),
    };
    const ceilingCpu = { furrow: () => cpuSeconds(ceiling.pid), 'load generator': ownCpuSeconds };
    // SQLite's reads, measured again at the end without the read cache against the same ceiling run.
    const uncached: { name: string; load: Parameters<typeof load>[0]; top: LoadResult }[] = [];
    for (const m of MEASUREMENTS) {
      if (!settings.wanted(m.name)) continue;
      await analyze();
      const method = m.method ?? 'GET';
      const input = m.body ? JSON.parse(m.body) : undefined;
      // The paths the requests take in turn, each with its own If-Match.
      const ids = m.spread
        ? ((await ok(api.call('GET', `/api/crop/crop?pageLimit=${m.spread}`))) as { id: number }[]).map(
            (c) => c.id,
          )
        : [undefined];
      const targets: { path: string; headers: Record<string, string>; sample: Answer }[] = [];
      for (const id of ids) {
        const path = m.path.replace('{id}', String(id));
        let ifMatch: Record<string, string> = {};
        if (m.ifMatch) {
          // The values set once, so that every later request finds the record at the same version.
          const first = await api.call(method, path, input);
          if (first.status >= 300 || !first.headers.etag)
            throw new Error(`${path}: ${first.status} ${first.text}`);
          ifMatch = { 'if-match': first.headers.etag };
        }
        const sample = await api.call(method, path, input, ifMatch);
        if (sample.status >= 300) throw new Error(`${path}: ${sample.status} ${sample.text}`);
        await ceiling.set(method, path, sample);
        targets.push({ path, headers: ifMatch, sample });
      }
      const [first] = targets;
      if (!first) throw new Error(`${m.name}: no record to request`);
      const rotation = (prefix: string) =>
        targets.length > 1
          ? targets.map((t) => ({ path: `${prefix}${t.path}`, headers: t.headers }))
          : undefined;
      const headers = {
        ...auth,
        ...first.headers,
        ...(m.body ? { 'content-type': 'application/json' } : {}),
      };
      const handler = m.pgHandlerTarget !== undefined ? pgHandler : undefined;
      if (handler) {
        const answer = await callApi(handler.url, method, first.path, {
          body: input,
          token: api.token,
          headers: first.headers,
        });
        assertSameAnswer(m.name, first.sample, answer, method === 'POST');
      }
      const common = {
        method,
        headers,
        connections: CONNECTIONS,
        durationS: settings.durationS,
        warmupS: settings.warmupS,
      };
      // Ceilings and Furrow in turns; the best of each counts (noise on a shared machine only slows).
      let top: LoadResult | undefined;
      let run: LoadResult | undefined;
      let byHand: LoadResult | undefined;
      for (let round = 0; round < settings.rounds; round++) {
        const t = await load({
          ...common,
          urls: [`${ceiling.url}/c${first.path}`],
          rotation: rotation('/c'),
          body: m.body,
          cpu: ceilingCpu,
        });
        if (!top || t.rps > top.rps) top = t;
        if (handler) {
          const h = await load({
            ...common,
            urls: [`${handler.url}${first.path}`],
            rotation: rotation(''),
            body: m.body,
            cpu: {
              'pg handler': () => cpuSeconds(handler.child.pid!),
              'load generator': ownCpuSeconds,
              postgres: postgresCpuSeconds,
            },
          });
          if (!byHand || h.rps > byHand.rps) byHand = h;
        }
        const freshHeaders = m.idempotencyKey ? () => ({ 'idempotency-key': randomUUID() }) : undefined;
        const r = await load({
          ...common,
          urls: [`${server.url}${first.path}`],
          rotation: rotation(''),
          body: m.body,
          cpu,
          freshHeaders,
        });
        if (!run || r.rps > run.rps) run = r;
      }
      if (!top || !run) throw new Error('rounds must be at least 1');
      if (dialect === 'sqlite' && method === 'GET') {
        uncached.push({
          name: m.name,
          load: { ...common, urls: [first.path], rotation: rotation(''), cpu },
          top,
        });
      }
      figures.push({
        section: 'api',
        dialect,
        name: m.name,
        value: run.rps,
        unit: 'req/s',
        p99Ms: run.p99Ms,
        baseline: { name: 'bare Fastify', value: top.rps },
        ratio: run.rps / top.rps,
        ...(dialect === 'sqlite' && m.target !== undefined ? { target: { ratio: m.target } } : {}),
        cpu: run.cpu,
        baselineCpu: top.cpu,
      });
      if (byHand && m.pgHandlerTarget !== undefined) {
        figures.push({
          section: 'api',
          dialect,
          name: `${m.name} (pg handler)`,
          value: run.rps,
          unit: 'req/s',
          p99Ms: run.p99Ms,
          baseline: { name: 'Fastify + pg by hand', value: byHand.rps },
          ratio: run.rps / byHand.rps,
          target: { ratio: m.pgHandlerTarget },
          cpu: run.cpu,
          baselineCpu: byHand.cpu,
          note: `pg handler: p99 ${byHand.p99Ms} ms`,
        });
      }
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
        target: { atLeast: 20_000 },
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

    if (uncached.length > 0) {
      // What a read costs when the cache cannot answer it (the first read, or one after a write).
      await server.stop();
      const off = await deployment.api({ READ_CACHE: 'off' });
      const offCpu = { furrow: () => cpuSeconds(off.child.pid!), 'load generator': ownCpuSeconds };
      for (const u of uncached) {
        let best: LoadResult | undefined;
        for (let round = 0; round < settings.rounds; round++) {
          const r = await load({
            ...u.load,
            urls: u.load.urls.map((path) => `${off.url}${path}`),
            cpu: offCpu,
          });
          if (!best || r.rps > best.rps) best = r;
        }
        if (!best) throw new Error('rounds must be at least 1');
        figures.push({
          section: 'api',
          dialect,
          name: `${u.name}, read cache off`,
          value: best.rps,
          unit: 'req/s',
          p99Ms: best.p99Ms,
          baseline: { name: 'bare Fastify', value: u.top.rps },
          ratio: best.rps / u.top.rps,
          cpu: best.cpu,
          baselineCpu: u.top.cpu,
          note: 'READ_CACHE=off: every request reads the database',
        });
      }
    }
  } finally {
    ceiling.stop();
    pgHandler?.child.kill('SIGTERM');
    await deployment.close();
  }
  return figures;
}
