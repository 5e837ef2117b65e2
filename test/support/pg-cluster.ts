// A PostgreSQL cluster of a test's own, for tests that stop, restart or freeze the database: the
// shared server at 127.0.0.1:5432 is never touched. The server binaries (FURROW_TEST_PG_BIN, else
// the newest /usr/lib/postgresql/*/bin) run as the `postgres` user when the tests run as root, the
// data lives in a temporary folder, and the cluster is killed and removed when the test process
// ends, whatever happened.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes.js';

const run = promisify(execFile);
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

function findServerBinaries(): string | undefined {
  if (process.env.FURROW_TEST_PG_BIN) return process.env.FURROW_TEST_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

export const PG_BIN = findServerBinaries();

/** Why no cluster can be started here, or undefined. */
function clusterProblem(): string | undefined {
  if (PG_BIN === undefined || !existsSync(join(PG_BIN, 'initdb')))
    return 'no PostgreSQL server binaries (set FURROW_TEST_PG_BIN to the folder of initdb and pg_ctl)';
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root and there is no postgres user to run the server as';
    }
  }
  return undefined;
}

const problem = clusterProblem();
if (problem && !IN_CI) {
  process.stderr.write(
    `\n!!! ${problem}.\n!!! The tests that stop or freeze a PostgreSQL cluster of their own are SKIPPED. CI runs them.\n\n`,
  );
}

/** The `skip` option of a suite that needs a cluster of its own: skipped only outside CI. */
export const pgClusterSkip: string | false = problem && !IN_CI ? problem : false;

export interface PgCluster {
  readonly port: number;
  /** postgres://postgres[:password]@127.0.0.1:PORT/DATABASE (trust authentication: any password). */
  url(database: string, password?: string): string;
  createDatabase(name: string): Promise<string>;
  /** One statement on a short-lived connection. */
  query<R extends pg.QueryResultRow = any>(database: string, text: string, values?: unknown[]): Promise<R[]>;
  /** `pg_ctl -m fast stop`: sessions are ended with 57P01, new connections are refused. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every process it started: the server answers nothing. */
  freeze(): void;
  /** SIGCONT to every process frozen. */
  thaw(): void;
  /** Stops it at once and removes its data. Safe to call twice. */
  destroy(): Promise<void>;
}

const clusters = new Set<{ dir: string; pid(): number | undefined }>();
process.once('exit', () => {
  for (const cluster of clusters) killNow(cluster.dir, cluster.pid());
});
// A signal ends the process without 'exit' (npm test stops its test processes with one on Ctrl-C or
// SIGTERM), and the server runs in a session of its own that the signal does not reach: the
// clusters go first, then the signal does what it would have done.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    for (const cluster of clusters) killNow(cluster.dir, cluster.pid());
    clusters.clear();
    process.kill(process.pid, signal);
  });
}

function killNow(dir: string, pid: number | undefined): void {
  if (pid !== undefined) {
    for (const p of [pid, ...childrenOf(pid)]) {
      try {
        process.kill(p, 'SIGCONT');
        process.kill(p, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command name (which may hold spaces) start with state, then ppid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) children.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return children;
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** initdb and start a cluster on a free port of 127.0.0.1. */
export async function startPgCluster(): Promise<PgCluster> {
  if (problem) throw new Error(`cannot start a PostgreSQL cluster: ${problem}`);
  const dir = mkdtempSync(join(tmpdir(), 'furrow-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  // initdb refuses to run as root: as root, the server runs as postgres and owns the folder.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
  let frozen: number[] = [];
  const pid = (): number | undefined => {
    try {
      const first = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0];
      return first ? Number(first) : undefined;
    } catch {
      return undefined;
    }
  };
  const entry = { dir, pid };
  clusters.add(entry);
  const asPostgres = (binary: string, args: string[]) => {
    const command = join(PG_BIN!, binary);
    return asRoot
      ? run('runuser', ['-u', 'postgres', '--', command, ...args], { cwd: dir, timeout: 60_000 })
      : run(command, args, { cwd: dir, timeout: 60_000 });
  };

  const port = await freePort();
  const serverOptions = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-k ${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=100',
  ].join(' ');
  const start = async () => {
    await asPostgres('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '30', '-o', serverOptions, 'start']);
  };
  const url = (database: string, password?: string) =>
    `postgres://postgres${password ? `:${encodeURIComponent(password)}` : ''}@127.0.0.1:${port}/${database}`;
  const query = async (database: string, text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url(database), connectionTimeoutMillis: 5000 });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  };

  try {
    await asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    await start();
  } catch (err) {
    killNow(dir, pid());
    clusters.delete(entry);
    const serverLog = existsSync(log) ? readFileSync(log, 'utf8') : '';
    throw new Error(`could not start a PostgreSQL cluster: ${(err as Error).message}\n${serverLog}`);
  }

  return {
    port,
    url,
    query,
    async createDatabase(name) {
      await query('postgres', `create database ${name}`);
      return url(name);
    },
    async stop() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
    },
    start,
    freeze() {
      const postmaster = pid();
      if (postmaster === undefined) throw new Error('the cluster is not running');
      // The postmaster first, so it starts no process after the list is read.
      process.kill(postmaster, 'SIGSTOP');
      frozen = [postmaster, ...childrenOf(postmaster)];
      for (const p of frozen.slice(1)) process.kill(p, 'SIGSTOP');
    },
    thaw() {
      for (const p of frozen.reverse()) {
        try {
          process.kill(p, 'SIGCONT');
        } catch {
          // already gone
        }
      }
      frozen = [];
    },
    async destroy() {
      if (!clusters.has(entry)) return;
      clusters.delete(entry);
      for (const p of frozen) {
        try {
          process.kill(p, 'SIGCONT');
        } catch {
          // already gone
        }
      }
      frozen = [];
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '10', 'stop']).catch(() => {});
      killNow(dir, pid());
    },
  };
}
