// Which errors mean "the database cannot serve us right now" rather than "this statement is wrong":
// the server is down, restarting, unreachable, out of connections, too slow to answer, or (SQLite)
// locked by another process past the busy timeout. Those are answered 503 with Retry-After, and
// the background services wait and try again; everything else stays a failure of its own.

/** Why the database is unavailable; each has a message in the catalogue (db.reason.*). */
export type UnavailableReason =
  | 'unreachable'
  | 'restarting'
  | 'connection_lost'
  | 'timeout'
  | 'no_free_connections'
  | 'locked';

/** Seconds a client is asked to wait before trying again (Retry-After). */
export const RETRY_AFTER_SECONDS = 5;

/** The reason when the error (or an error it wraps) says the database is unavailable. */
export function unavailableReason(err: unknown): UnavailableReason | undefined {
  for (let depth = 0, current = err; depth < 5 && isObject(current); depth++) {
    const reason = reasonOf(current);
    if (reason) return reason;
    // Node's connect to several addresses fails with an AggregateError of one error each.
    if (current instanceof AggregateError) {
      for (const inner of current.errors) {
        const innerReason = unavailableReason(inner);
        if (innerReason) return innerReason;
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  return unavailableReason(err) !== undefined;
}

/**
 * True when a connection that saw this error must not be used again: it is gone, or a statement
 * timed out on the client side and the connection is still busy with it. A statement the server
 * cancelled (57014) leaves its connection usable.
 */
export function isConnectionBroken(err: unknown): boolean {
  const reason = unavailableReason(err);
  return reason !== undefined && sqlState(err) !== '57014';
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const NETWORK_CODES: Record<string, UnavailableReason> = {
  ECONNREFUSED: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ENOTFOUND: 'unreachable',
  EAI_AGAIN: 'unreachable',
  ECONNRESET: 'connection_lost',
  ECONNABORTED: 'connection_lost',
  EPIPE: 'connection_lost',
  ETIMEDOUT: 'timeout',
};

/** Errors of the pg driver and pool, which carry no code: matched on their fixed texts. */
const PG_MESSAGES: [RegExp, UnavailableReason][] = [
  [/^timeout exceeded when trying to connect$/, 'timeout'],
  [/^Connection terminated due to connection timeout$/, 'timeout'],
  [/^Query read timeout$/, 'timeout'],
  [/^timeout expired$/, 'timeout'],
  [/^Connection terminated/, 'connection_lost'],
  [/^Client has encountered a connection error and is not queryable$/, 'connection_lost'],
  [/^Client was closed and is not queryable$/, 'connection_lost'],
  [/^Cannot use a pool after calling end on the pool$/, 'connection_lost'],
];

function reasonOf(err: object): UnavailableReason | undefined {
  const code = sqlState(err);
  if (code !== undefined) {
    if (Object.hasOwn(NETWORK_CODES, code)) return NETWORK_CODES[code];
    // A Unix socket that is not there: the server is not running.
    if (code === 'ENOENT' && (err as { syscall?: unknown }).syscall === 'connect') return 'unreachable';
    // PostgreSQL: admin or crash shutdown, starting up or shutting down, cannot connect now.
    if (code === '57P01' || code === '57P02' || code === '57P03') return 'restarting';
    if (code === '53300') return 'no_free_connections';
    // statement_timeout (57014); idle_in_transaction_session_timeout ended the session (25P03).
    if (code === '57014') return 'timeout';
    if (code === '25P03') return 'connection_lost';
    // Class 08: connection exception.
    if (/^08[0-9A-Z]{3}$/.test(code)) return 'connection_lost';
    // SQLite: another connection holds the lock past the busy timeout (SQLITE_BUSY, SQLITE_LOCKED
    // and their extended codes).
    if (/^SQLITE_(BUSY|LOCKED)(_|$)/.test(code)) return 'locked';
  }
  const message = (err as { message?: unknown }).message;
  if (typeof message === 'string' && err instanceof Error) {
    for (const [pattern, reason] of PG_MESSAGES) if (pattern.test(message)) return reason;
  }
  return undefined;
}
