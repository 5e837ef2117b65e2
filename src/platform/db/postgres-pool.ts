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

/**
 * The pool as Kysely's PostgresDialect uses it. A connection whose statement failed because the
 * connection is gone or timed out on the client side (pg leaves it busy with that statement) fails
 * every later statement at once with the same error, the transaction's rollback included, and is
 * destroyed when released.
 */
export function kyselyPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken: unknown;
      const query = async (sqlText: string, parameters: readonly unknown[]) => {
        if (broken !== undefined) throw broken;
        try {
          return await client.query(sqlText, [...parameters]);
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
