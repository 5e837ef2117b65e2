// Instructions per request, counted by valgrind's callgrind: the same count for the same code,
// whatever else the machine does (a time or a CPU figure moved by half between two rounds of the
// same code on the shared machines the bench runs on). The same-bytes ceiling
// (bench/ceiling-server.ts) and this build are counted side by side, and another checkout's build
// too when given, each serving one request after another: a warm-up, then `requests` counted, three
// times (the fewest count). What
// it cannot see: the kernel's part (system calls, the network), which is the same for each.
//
//   node --import tsx bench/instructions.ts [path (default /api/crop/crop/1)] [requests (default 1000)] [other checkout]
//
// The other checkout needs its own `npm run build:server` (and node_modules) first. Each server
// takes a few minutes under valgrind.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { freePort, SERVE_NODE_FLAGS } from '../test/support/processes.js';
import { type Deployment, deploy, ensureCompiled, login } from './lib/furrow.js';

const path = process.argv[2] ?? '/api/crop/crop/1';
const requests = Number(process.argv[3] ?? 1000);
const other = process.argv[4] ? resolve(process.argv[4]) : undefined;
const WARM_UP = 3000;
const ROUNDS = 3;
const STARTUP_MS = 300_000;

interface Counted {
  name: string;
  url: string;
  child: ChildProcess;
  outDir: string;
  token?: string;
}

/** Starts `args` under callgrind, instrumentation off until the warm-up is done. */
async function underCallgrind(name: string, args: string[], env: Record<string, string>, cwd: string) {
  const port = await freePort();
  const outDir = mkdtempSync(join(tmpdir(), 'furrow-callgrind-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all',
      '--instr-atstart=no',
      `--callgrind-out-file=${join(outDir, 'out.%p')}`,
      process.execPath,
      ...args,
    ],
    { env: { ...process.env, ...env, PORT: String(port) }, cwd, stdio: 'ignore' },
  );
  return { name, url: `http://127.0.0.1:${port}`, child, outDir };
}

async function waitFor(url: string): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    try {
      const res = await request(url);
      await res.body.dump();
      if (res.statusCode < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url}: not answering after ${STARTUP_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function get(server: Counted, times: number): Promise<void> {
  const headers = server.token ? { authorization: `Bearer ${server.token}` } : {};
  const url = server.name === 'ceiling' ? `${server.url}/c${path}` : `${server.url}${path}`;
  for (let i = 0; i < times; i++) {
    const res = await request(url, { headers });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${server.name} ${path}: ${res.statusCode} ${text}`);
  }
}

/**
 * The counted requests' instructions, from the dump written at their end: the fewest of ROUNDS
 * rounds. Which code V8 has optimized by then depends on when its compiler thread got to it, which
 * valgrind's one-thread-at-a-time schedule moves: a round may still run slower code (one gave 1.9×
 * the others), never faster.
 */
async function count(server: Counted): Promise<number> {
  await get(server, WARM_UP);
  const pid = String(server.child.pid);
  let fewest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    for (const file of readdirSync(server.outDir)) rmSync(join(server.outDir, file));
    execFileSync('callgrind_control', ['--instr=on', pid], { stdio: 'ignore' });
    await get(server, requests);
    execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--instr=off', pid], { stdio: 'ignore' });
    let total = 0;
    for (const file of readdirSync(server.outDir)) {
      const summary = /^summary:\s*(\d+)/m.exec(readFileSync(join(server.outDir, file), 'utf8'));
      if (summary) total += Number(summary[1]);
    }
    fewest = Math.min(fewest, total / requests);
  }
  return fewest;
}

async function main(): Promise<void> {
  execFileSync('valgrind', ['--version']);
  if (other && !existsSync(join(other, 'dist')))
    throw new Error(`${other}: no dist/ (npm run build:server there)`);
  ensureCompiled();
  const deployments: Deployment[] = [];
  const servers: Counted[] = [];
  try {
    const furrow = async (name: string, bin: string) => {
      // Each its own database: SQLite is served by one process.
      const deployment = await deploy('sqlite');
      deployments.push(deployment);
      const server: Counted = await underCallgrind(
        name,
        [...SERVE_NODE_FLAGS, bin, 'serve', '--role', 'api'],
        deployment.env,
        deployment.dir,
      );
      servers.push(server);
      await waitFor(`${server.url}/healthz`);
      server.token = (await login(server.url)).token;
      return server;
    };
    const ceiling = await underCallgrind(
      'ceiling',
      ['--import', 'tsx', join(import.meta.dirname, 'ceiling-server.ts')],
      {},
      process.cwd(),
    );
    servers.push(ceiling);
    const started = await Promise.all([
      furrow('this build', join(import.meta.dirname, '..', 'bin', 'furrow.js')),
      ...(other ? [furrow('other build', join(other, 'bin', 'furrow.js'))] : []),
      waitFor(`${ceiling.url}/c/ping`).then(() => ceiling),
    ]);
    // The ceiling answers this build's own answer.
    const sample = await request(`${started[0]!.url}${path}`, {
      headers: { authorization: `Bearer ${started[0]!.token}` },
    });
    const body = await sample.body.text();
    if (sample.statusCode !== 200) throw new Error(`${path}: ${sample.statusCode} ${body}`);
    const headers = Object.fromEntries(
      Object.entries(sample.headers).filter(
        ([name]) => !['content-length', 'date', 'connection', 'keep-alive'].includes(name),
      ),
    );
    const set = await request(`${ceiling.url}/set`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path, body, status: 200, headers }),
    });
    await set.body.dump();
    const counts = await Promise.all(servers.map(async (s) => [s.name, await count(s)] as const));
    const byName = new Map(counts);
    const ceilingCount = byName.get('ceiling')!;
    for (const [name, n] of counts) {
      process.stdout.write(
        `${name}: ${Math.round(n).toLocaleString('en')} instructions per request${
          name === 'ceiling' ? '' : ` (${(n / ceilingCount).toFixed(2)}× the ceiling)`
        }\n`,
      );
    }
    const otherCount = byName.get('other build');
    if (otherCount !== undefined) {
      process.stdout.write(
        `this build / other build: ${(byName.get('this build')! / otherCount).toFixed(3)}\n`,
      );
    }
  } finally {
    for (const s of servers) {
      s.child.kill('SIGKILL');
      rmSync(s.outDir, { recursive: true, force: true });
    }
    await Promise.all(deployments.map((d) => d.close()));
  }
}

await main();
process.exit(0);
