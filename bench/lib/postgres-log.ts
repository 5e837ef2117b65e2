// What the cost tools (delivery-cost.ts, event-cost.ts, batch-cost.ts) read of the bench's PostgreSQL: the CPU of
// one database's backends, the statements the server logged for it, and the WAL the server wrote.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import pg from 'pg';
import type { DialectName } from '../../src/platform/db/types.js';
import { cpuSeconds } from './system.js';

/** The server's log on these machines (Debian's cluster 15/main). */
export const POSTGRES_LOG = '/var/log/postgresql/postgresql-15-main.log';

/** The log's size now: where the statements of what follows start. */
export function logOffset(): number {
  return statSync(POSTGRES_LOG).size;
}

/**
 * The server's WAL position in bytes: the difference between two is what the whole server wrote
 * between them (every database's, so nothing else should run on it meanwhile).
 */
export async function walPosition(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ at: string }>(
    `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as at`,
  );
  return Number(rows[0]!.at);
}

/** CPU seconds of the PostgreSQL backends serving `database` now (by pid, remembered across calls). */
export async function backendCpu(
  client: pg.Client,
  database: string,
  seen: Map<number, number>,
): Promise<number> {
  const { rows } = await client.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [database],
  );
  for (const { pid } of rows) seen.set(pid, cpuSeconds(pid));
  return [...seen.values()].reduce((a, b) => a + b, 0);
}

function logSince(offset: number): string {
  const size = statSync(POSTGRES_LOG).size;
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(POSTGRES_LOG, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8');
}

export interface StatementKind {
  count: number;
  /** Server time of them all, when the log gave durations (log_min_duration_statement = 0). */
  ms: number;
}

/**
 * The statements of one database logged since `offset`, by the first words of their text: simple
 * queries and executions of named ones, as `log_statement = 'all'` or
 * `log_min_duration_statement = 0` log them.
 */
export function loggedStatements(offset: number, database: string, width = 70): Map<string, StatementKind> {
  const kinds = new Map<string, StatementKind>();
  const marker = `@${database} LOG:  `;
  const lines = logSince(offset).split('\n');
  for (const [n, line] of lines.entries()) {
    const at = line.indexOf(marker);
    if (at < 0) continue;
    const m = /^(?:duration: ([0-9.]+) ms {2})?(?:statement|execute [^:]*): (.*)$/.exec(
      line.slice(at + marker.length),
    );
    if (!m) continue;
    // A statement written over several lines: its first words are on the next ones.
    const text = (m[2]!.trim() === '' ? lines.slice(n + 1, n + 4).join(' ') : m[2]!)
      .replace(/\s+/g, ' ')
      .trim();
    const kind = text.slice(0, width);
    const entry = kinds.get(kind) ?? { count: 0, ms: 0 };
    entry.count += 1;
    entry.ms += Number(m[1] ?? 0);
    kinds.set(kind, entry);
  }
  return kinds;
}

/**
 * A deployment's database name and a client on the server's `postgres` database (for the backends'
 * CPU and settings), connected; neither on SQLite.
 */
export async function adminOf(
  dialect: DialectName,
  databaseUrl: string,
): Promise<{ database: string; admin: pg.Client | undefined }> {
  if (dialect !== 'postgres') return { database: '', admin: undefined };
  // The same server's `postgres` database: only the URL's path changes (a socket directory given as
  // `?host=/var/run/postgresql` stays as it is).
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  return { database: new URL(databaseUrl).pathname.slice(1), admin };
}
