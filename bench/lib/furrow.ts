// Furrow as an operator runs it: a fresh database, `furrow migrate`, a tenant made with the CLI, and
// `furrow serve` processes with their roles. The compiled build runs (dist/, built when stale).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { sourceDigest } from '../../bin/source-digest.js';
import type { DialectName } from '../../src/platform/db/types.js';
import { TestDatabase } from '../../test/support/databases.js';
import {
  REPO_ROOT,
  runFurrow,
  type ServerProcess,
  startFurrow,
  startFurrowWorker,
} from '../../test/support/processes.js';

export const TENANT = { code: 'bench', owner: 'owner', password: 'bench-password' };

/** Builds dist/ unless it matches the sources, so the figures are those of `npm start`. */
export function ensureCompiled(): void {
  const stamp = join(REPO_ROOT, 'dist', '.source-digest');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === sourceDigest(REPO_ROOT)) return;
  process.stderr.write('bench: compiling the service (npm run build:server)\n');
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-server.mjs')], {
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('npm run build:server failed');
}

export interface Deployment {
  dialect: DialectName;
  databaseUrl: string;
  env: Record<string, string>;
  /** Working directory of the processes (SQLite file, secret key). */
  dir: string;
  api(extraEnv?: Record<string, string>): Promise<ServerProcess>;
  all(extraEnv?: Record<string, string>): Promise<ServerProcess>;
  worker(extraEnv?: Record<string, string>): Promise<ServerProcess>;
  cli(args: string[]): Promise<void>;
  close(): Promise<void>;
}

/** A fresh database with the bench tenant (and its demo data). */
export async function deploy(dialect: DialectName, env: Record<string, string> = {}): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-bench-'));
  const database = new TestDatabase(dialect);
  const databaseUrl = dialect === 'sqlite' ? `sqlite:${join(dir, 'furrow.db')}` : await database.create();
  const baseEnv = {
    DATABASE_URL: databaseUrl,
    FURROW_SECRET_KEY: 'be'.repeat(32),
    LOG_LEVEL: 'warn',
    ...env,
  };
  const processes: ServerProcess[] = [];
  const track = (p: ServerProcess) => {
    processes.push(p);
    return p;
  };
  const deployment: Deployment = {
    dialect,
    databaseUrl,
    env: baseEnv,
    dir,
    api: async (extra = {}) =>
      track(await startFurrow(['serve', '--role', 'api'], { env: { ...baseEnv, ...extra }, cwd: dir })),
    all: async (extra = {}) =>
      track(await startFurrow(['serve'], { env: { ...baseEnv, ...extra }, cwd: dir })),
    // The worker tells of its start in an info line.
    worker: async (extra = {}) =>
      track(await startFurrowWorker([], { env: { ...baseEnv, LOG_LEVEL: 'info', ...extra }, cwd: dir })),
    async cli(args) {
      const result = await runFurrow(args, { env: baseEnv, cwd: dir });
      if (result.code !== 0) throw new Error(`furrow ${args.join(' ')}: ${result.stderr}`);
    },
    async close() {
      await Promise.all(processes.map((p) => p.stop()));
      await database.drop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await deployment.cli(['migrate']);
  await deployment.cli([
    'tenant',
    'create',
    '--code',
    TENANT.code,
    '--name',
    'Bench farm',
    '--owner',
    TENANT.owner,
    '--password',
    TENANT.password,
    '--demo',
  ]);
  return deployment;
}

/** The ids of a tenant and of its owner, read from the database. */
export async function tenantIds(
  databaseUrl: string,
  code = TENANT.code,
): Promise<{ tenantId: number; ownerId: number }> {
  const { openDatabase } = await import('../../src/platform/db/database.js');
  const handle = openDatabase(databaseUrl, { maxConnections: 1 });
  try {
    const row = await handle.db
      .selectFrom('users')
      .innerJoin('tenants', 'tenants.id', 'users.tenant_id')
      .select(['tenants.id as tenantId', 'users.id as ownerId'])
      .where('tenants.code', '=', code)
      .where('users.role', '=', 'owner')
      .orderBy('users.id')
      .executeTakeFirstOrThrow();
    return row;
  } finally {
    await handle.close();
  }
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any;
}

/** A small JSON client of one API process, logged in as the owner of a tenant. */
export interface Api {
  base: string;
  token: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
}

/** One JSON request to `base` (any server speaking the API), its answer read whole. */
export async function callApi(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const { body, token, headers: extra } = options;
  const res = await request(`${base}${path}`, {
    method: method as 'GET',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...extra,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { status: res.statusCode, headers, text, json: json as any };
}

export async function login(base: string, tenant = TENANT): Promise<Api> {
  const answer = await callApi(base, 'POST', '/api/auth/login', {
    body: { tenantcode: tenant.code, username: tenant.owner, password: tenant.password },
  });
  const token = answer.json?.data?.token;
  if (typeof token !== 'string') throw new Error(`login failed: ${answer.text}`);
  return {
    base,
    token,
    call: (method, path, body, headers) => callApi(base, method, path, { body, token, headers }),
  };
}

/** Asserts a 2xx answer and returns its JSON. */
export async function ok(answer: Promise<Answer>): Promise<any> {
  const res = await answer;
  if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}: ${res.text.slice(0, 500)}`);
  return res.json;
}
