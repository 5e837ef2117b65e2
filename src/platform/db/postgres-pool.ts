// The PostgreSQL pool: every connection carries the timeouts, no connection error can end the
// process, and a connection that failed or timed out is destroyed instead of going back to the pool.
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { isConnectionBroken } from './unavailable.js';

export interface PostgresTimeouts {
  /** Longest wait for a connection: a new one, or a free one of a full pool. */
  connectMs: number;
  /** The server's statement_timeout; 0 for none. The client gives up CLIENT_MARGIN_MS later. */
  statementMs: number;
  /** The server's idle_in_transaction_session_timeout; 0 for none. */
  idleInTransactionMs: number;
}

/**
 * How much longer than statement_timeout the client waits for an answer. A frozen server (stopped
 * process, stalled disk, lost network) enforces no timeout of its own, so the client needs one; the
 * margin lets a working server answer its own cancellation first.
 */
export const CLIENT_MARGIN_MS = 1000;

export function createPostgresPool(
  connectionString: string,
  max: number,
  timeouts: PostgresTimeouts,
  types: pg.CustomTypesConfig,
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    types,
    connectionTimeoutMillis: timeouts.connectMs,
    ...(timeouts.statementMs > 0 && {
      statement_timeout: timeouts.statementMs,
      query_timeout: timeouts.statementMs + CLIENT_MARGIN_MS,
    }),
    ...(timeouts.idleInTransactionMs > 0 && {
      idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    }),
  });
  // A connection that loses its server emits 'error': the pool listens while it is idle, nobody
  // while it is checked out, and an 'error' nobody listens to ends the process. The statement in
  // flight fails on its own, and the connection is destroyed when it is released.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Statements named at most, per process: past this, new texts run unnamed. */
const MAX_NAMED_STATEMENTS = 1_000;
/** Texts counted at most while they wait for their second run. */
const MAX_COUNTED_TEXTS = 5_000;
/** The code of "cached plan must not change result type" (a table changed under a named statement). */
const FEATURE_NOT_SUPPORTED = '0A000';

/**
 * Names for the statements this process runs again and again, so that each connection parses and
 * plans such a statement once and then only binds and executes it (PostgreSQL's extended protocol
 * with a named statement; pg keeps, per connection, which names it has prepared). A text is named
 * on its second run, so one-off texts (an `in` list of a length never seen again) are never
 * prepared; statements without parameters (begin, commit, DDL) never are. The number of names is
 * bounded, and so is what the server keeps per connection.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seen = new Map<string, number>();
  private next = 0;

  constructor(
    private readonly maxNames = MAX_NAMED_STATEMENTS,
    private readonly maxCounted = MAX_COUNTED_TEXTS,
  ) {}

  nameFor(text: string, parameterCount: number): string | undefined {
    if (parameterCount === 0) return undefined;
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= this.maxNames) return name;
    if (!this.seen.has(text)) {
      if (this.seen.size >= this.maxCounted) this.seen.clear();
      this.seen.set(text, 1);
      return undefined;
    }
    this.seen.delete(text);
    this.next += 1;
    const named = `furrow_${this.next}`;
    this.names.set(text, named);
    return named;
  }

  /** The server refused a named statement's plan: its text gets a new name next time. */
  forget(text: string): void {
    this.names.delete(text);
  }

  get size(): number {
    return this.names.size;
  }
}

/** Whether a failed statement was refused because a table changed since it was prepared. */
function isStalePlan(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === FEATURE_NOT_SUPPORTED;
}

/**
 * The pool as Kysely's PostgresDialect uses it, naming repeated statements when `names` is given.
 * A connection whose statement failed because the
 * connection is gone or timed out on the client side (pg leaves it busy with that statement) fails
 * every later statement at once with the same error, the transaction's rollback included, and is
 * destroyed when released.
 */
export function kyselyPool(pool: pg.Pool, names?: StatementNames): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken: unknown;
      /** Inside begin … commit/rollback: a failed statement there cannot simply be run again. */
      let inTransaction = false;
      const query = async (sqlText: string, parameters: readonly unknown[]) => {
        if (broken !== undefined) throw broken;
        if (parameters.length === 0) {
          const word = sqlText.trimStart().slice(0, 8).toLowerCase();
          if (word.startsWith('begin') || word.startsWith('start')) inTransaction = true;
          else if (word.startsWith('commit') || word.startsWith('rollback')) inTransaction = false;
        }
        const name = names?.nameFor(sqlText, parameters.length);
        try {
          if (name === undefined) return await client.query(sqlText, [...parameters]);
          try {
            return await client.query({ name, text: sqlText, values: [...parameters] });
          } catch (err) {
            // A table changed under the prepared statement (a migration of a newer release): the
            // text gets a new name, and outside a transaction the statement simply runs again.
            if (!isStalePlan(err)) throw err;
            names?.forget(sqlText);
            if (inTransaction) throw err;
            return await client.query(sqlText, [...parameters]);
          }
        } catch (err) {
          if (isConnectionBroken(err)) broken = err;
          throw err;
        }
      };
      return {
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(broken !== undefined),
      };
    },
    end: () => pool.end(),
  };
}

/** select 1 on a connection of the pool, answered within timeoutMs or failed. */
export async function pingPool(pool: pg.Pool, timeoutMs: number): Promise<void> {
  const client = await pool.connect();
  let broken = false;
  try {
    // pg reads query_timeout from a query's config too; its types do not list it.
    const ping: pg.QueryConfig & { query_timeout: number } = { text: 'select 1', query_timeout: timeoutMs };
    await client.query(ping);
  } catch (err) {
    broken = isConnectionBroken(err);
    throw err;
  } finally {
    client.release(broken);
  }
}
