// Furrow's benchmarks: every figure is a ratio against a ceiling measured in the same run on the
// same machine. `npm run bench:quick` (SQLite, short runs) or `npm run bench` (SQLite and
// PostgreSQL, longer runs). Writes bench/results/latest.json and prints a Markdown table.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { TestDatabase } from '../test/support/databases.js';
import { freePort, runFurrow, type ServerProcess, startFurrow } from '../test/support/processes.js';

const quick = process.argv.includes('--quick');
const durationS = quick ? 4 : 15;
const connections = 50;
const dialects = quick ? (['sqlite'] as const) : (['sqlite', 'postgres'] as const);

interface Figure {
  dialect: string;
  name: string;
  rps: number;
  p99ms: number;
  ceilingRps?: number;
  ratio?: number;
  target?: number;
  unit?: string;
}

async function load(
  url: string,
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    method: (options.method ?? 'GET') as 'GET',
    body: options.body,
    headers: options.headers,
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  return { rps: result.requests.average, p99ms: result.latency.p99 };
}

async function startCeiling(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'ceiling-server.ts')], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'inherit',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${url}/c/ping`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

async function json(url: string, init: RequestInit & { token?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url, { ...init, headers });
  return { status: res.status, text: await res.text() };
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function benchDialect(dialect: 'sqlite' | 'postgres', ceiling: { url: string }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-bench-'));
  const database = new TestDatabase(dialect);
  const url = dialect === 'sqlite' ? `sqlite:${join(dir, 'furrow.db')}` : await database.create();
  const env = { DATABASE_URL: url, FURROW_SECRET_KEY: 'be'.repeat(32), LOG_LEVEL: 'warn' };
  let server: ServerProcess | undefined;
  try {
    await runFurrow(['migrate'], { env });
    const created = await runFurrow(
      [
        'tenant',
        'create',
        '--code',
        'bench',
        '--name',
        'Bench',
        '--owner',
        'owner',
        '--password',
        'bench-password',
        '--demo',
      ],
      { env },
    );
    if (created.code !== 0) throw new Error(created.stderr);
    server = await startFurrow(['serve', '--role', 'api'], { env, cwd: dir });
    const base = server.url;
    const login = JSON.parse(
      (
        await json(`${base}/api/auth/login`, {
          method: 'POST',
          body: JSON.stringify({ tenantcode: 'bench', username: 'owner', password: 'bench-password' }),
        })
      ).text,
    );
    const token: string = login.data.token;
    const auth = { authorization: `Bearer ${token}` };

    // Data: enough crops and tasks for the lists to page.
    const seed = quick ? 500 : 5000;
    for (let i = 0; i < seed; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          json(`${base}/api/crop/crop`, {
            method: 'POST',
            token,
            body: JSON.stringify({
              name: `Crop ${i + k}`,
              code: `C${i + k}`,
              sku: `SKU${i + k}`,
              price: 1000 + k,
              status: 1,
            }),
          }),
        ),
      );
    }
    await json(`${base}/api/iot/devices`, {
      method: 'POST',
      token,
      body: JSON.stringify({ code: 'bench-1' }),
    });

    const figures: Figure[] = [];
    const reads: { name: string; path: string; target: number }[] = [
      { name: 'crop detail', path: '/api/crop/crop/1', target: 0.6 },
      { name: 'crop list (pageLimit 20)', path: '/api/crop/crop?page=0&pageLimit=20', target: 0.5 },
      { name: 'season detail', path: '/api/crop/season/1', target: 0.6 },
      {
        name: 'task list, date filter',
        path: '/api/diary/production?from_date=2026-01-01&to_date=2026-12-31',
        target: 0.5,
      },
    ];
    for (const read of reads) {
      const answer = await json(`${base}${read.path}`, { token });
      if (answer.status !== 200) throw new Error(`${read.path}: ${answer.status} ${answer.text}`);
      await json(`${ceiling.url}/set`, {
        method: 'POST',
        body: JSON.stringify({ path: read.path, body: answer.text }),
      });
      const ceilingRun = await load(`${ceiling.url}/c${read.path}`);
      const run = await load(`${base}${read.path}`, { headers: auth });
      figures.push({
        dialect,
        name: read.name,
        ...run,
        ceilingRps: ceilingRun.rps,
        ratio: run.rps / ceilingRun.rps,
        target: read.target,
      });
    }

    // Create: the ceiling answers the same 201 body for the same request.
    const createBody = JSON.stringify({ name: 'Bench crop', code: 'B', price: 1, status: 1 });
    const sample = await json(`${base}/api/crop/crop`, { method: 'POST', token, body: createBody });
    await json(`${ceiling.url}/set`, {
      method: 'POST',
      body: JSON.stringify({ path: '/api/crop/crop', body: sample.text, status: 201 }),
    });
    const createHeaders = { ...auth, 'content-type': 'application/json' };
    const ceilingCreate = await load(`${ceiling.url}/c/api/crop/crop`, {
      method: 'POST',
      body: createBody,
      headers: createHeaders,
    });
    const create = await load(`${base}/api/crop/crop`, {
      method: 'POST',
      body: createBody,
      headers: createHeaders,
    });
    figures.push({
      dialect,
      name: 'crop create',
      ...create,
      ceilingRps: ceilingCreate.rps,
      ratio: create.rps / ceilingCreate.rps,
      target: 0.3,
    });

    // Ingestion: batches of 100 readings.
    const readings = JSON.stringify({
      readings: Array.from({ length: 100 }, (_, i) => ({
        device_code: 'bench-1',
        metric: 'temperature',
        value: 20 + (i % 10),
      })),
    });
    const ingest = await load(`${base}/api/iot/readings`, {
      method: 'POST',
      body: readings,
      headers: createHeaders,
    });
    figures.push({
      dialect,
      name: 'IoT readings ingested',
      rps: ingest.rps * 100,
      p99ms: ingest.p99ms,
      unit: 'readings/s',
      target: dialect === 'sqlite' ? 20000 : undefined,
    });

    figures.push({
      dialect,
      name: 'peak RSS of furrow serve',
      rps: peakRssMb(server.child.pid!),
      p99ms: Number.NaN,
      unit: 'MB',
      target: 200,
    });
    return figures;
  } finally {
    await server?.stop();
    await database.drop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

function table(figures: Figure[]): string {
  const rows = figures.map((f) => {
    const value = f.unit ? `${Math.round(f.rps)} ${f.unit}` : `${Math.round(f.rps)} req/s`;
    const ratio = f.ratio === undefined ? '' : f.ratio.toFixed(2);
    const ceilingRps = f.ceilingRps === undefined ? '' : `${Math.round(f.ceilingRps)} req/s`;
    const target =
      f.target === undefined
        ? ''
        : f.ratio !== undefined
          ? `≥ ${f.target} ${f.ratio >= f.target ? 'met' : 'NOT met'}`
          : f.unit === 'MB'
            ? `≤ ${f.target} ${f.rps <= f.target ? 'met' : 'NOT met'}`
            : `≥ ${f.target} ${f.rps >= f.target ? 'met' : 'NOT met'}`;
    const p99 = Number.isNaN(f.p99ms) ? '' : `${f.p99ms} ms`;
    return `| ${f.dialect} | ${f.name} | ${value} | ${p99} | ${ceilingRps} | ${ratio} | ${target} |`;
  });
  return [
    '| database | measurement | Furrow | p99 | ceiling | ratio | target |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const ceiling = await startCeiling();
try {
  const figures: Figure[] = [];
  for (const dialect of dialects) figures.push(...(await benchDialect(dialect, ceiling)));
  mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
  writeFileSync(
    join(import.meta.dirname, 'results', 'latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), quick, durationS, connections, node: process.version, figures }, null, 2)}\n`,
  );
  process.stdout.write(`${table(figures)}\n`);
} finally {
  ceiling.stop();
}
