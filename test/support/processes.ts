// Runs the real furrow CLI as a child process, as an operator would.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FURROW_BIN = fileURLToPath(new URL('../../bin/furrow.js', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `furrow ARGS` to completion (killed after timeoutMs, default 120 s: then code is null),
 * with `input` on its standard input.
 */
export function runFurrow(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FURROW_BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...baseEnv(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Without input, standard input ends at once (as </dev/null would).
    child.stdin.end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment without this machine's Furrow settings, so tests decide them. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(PORT|HOST|DATABASE_|FURROW_|TOKEN_TTL|WEBHOOK_|MQTT_|IOT_|LOG_LEVEL)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Node's flags for `furrow serve`, as `npm start` gives them (package.json) and the `furrow`
 * command's first line: tests and benchmarks run the service as it is started.
 */
export const SERVE_NODE_FLAGS: readonly string[] = (() => {
  const start: string = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('bin/furrow.js'));
})();

/** Starts `furrow serve …` and waits until /healthz answers. */
export async function startFurrow(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; nodeArgs?: string[] } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  // FURROW_NODE_ARGS: flags for the server's Node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p` in a bench).
  const nodeArgs = [
    ...SERVE_NODE_FLAGS,
    ...(process.env.FURROW_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ...(options.nodeArgs ?? []),
  ];
  const child = spawn(process.execPath, [...nodeArgs, FURROW_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...baseEnv(), PORT: String(port), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => {
    output += d;
  });
  child.stderr!.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`furrow exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`furrow did not start in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts `furrow serve --role worker …` (which listens on no port) and waits for its start-up line. */
export async function startFurrowWorker(
  args: string[] = [],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; nodeArgs?: string[] } = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [...SERVE_NODE_FLAGS, ...(options.nodeArgs ?? []), FURROW_BIN, 'serve', '--role', 'worker', ...args],
    {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...baseEnv(), LOG_LEVEL: 'info', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`furrow worker did not start in time:\n${output}`));
    }, options.timeoutMs ?? 20_000);
    const onData = (d: Buffer) => {
      output += d;
      if (output.includes('furrow worker started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`furrow worker exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    url: '',
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Migrates the database of `env` and creates a tenant with its owner, through the CLI. */
export async function migrateAndCreateTenant(
  env: Record<string, string>,
  code: string,
  owner: { username: string; password: string },
): Promise<void> {
  const migrated = await runFurrow(['migrate'], { env });
  if (migrated.code !== 0) throw new Error(`furrow migrate failed: ${migrated.stderr}`);
  const created = await runFurrow(
    [
      'tenant',
      'create',
      '--code',
      code,
      '--name',
      code,
      '--owner',
      owner.username,
      '--password',
      owner.password,
    ],
    { env },
  );
  if (created.code !== 0) throw new Error(`furrow tenant create failed: ${created.stderr}`);
}
