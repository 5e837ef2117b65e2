// When rows that in-process caches hold may have changed, on PostgreSQL: the code that changes them
// says so (`noteChange` in ../changes.ts), which NOTIFYs every process in the writing transaction
// (delivered at its commit) and moves this process's versions at once. Each process LISTENs on a
// connection of its own, outside the pool, and moves its versions when a notice arrives. While it
// is not listening (not yet, or the connection was lost and is being replaced) there is no
// version, and the caches read the database every time: a notice may have been missed.
//
// A connection can die silently (a frozen server, a lost network), so the listening connection is
// pinged every few seconds: one that does not answer in time is dropped and replaced, and the
// caches are bypassed meanwhile. Attempts to listen again are spaced out (1 s, doubling to 30 s).
// What another process changed is therefore seen here once its notice arrives (within a
// millisecond on a local network), and at worst after PING_EVERY_MS + PING_TIMEOUT_MS on a
// connection that died without a word.
import pg from 'pg';

export const CHANGES_CHANNEL = 'furrow_changes';
/** The listening connection's application_name, as pg_stat_activity shows it. */
export const CHANGES_APPLICATION_NAME = 'furrow changes';
const PING_EVERY_MS = 5_000;
const PING_TIMEOUT_MS = 2_000;
const RETRY_MS = 1_000;
/** The pause between attempts doubles while listening keeps failing, up to this. */
const MAX_RETRY_MS = 30_000;

export interface PostgresChangesOptions {
  pingEveryMs?: number;
  pingTimeoutMs?: number;
  retryMs?: number;
  /** Told once when listening fails or is lost, and once when it works again. */
  onState?: ChangesObserver;
}

export type ChangesObserver = (state: 'listening' | 'lost', err?: Error) => void;

/** Every tracker of this process: a change noted by any connection moves them all. */
const trackers = new Set<PostgresChanges>();

/** Rows of `topic` may have changed (called by noteChange, in the writing transaction). */
export function noteLocalPostgresChange(topic: string): void {
  for (const tracker of trackers) tracker.note(topic);
}

export class PostgresChanges {
  private readonly counts = new Map<string, number>();
  /** Moves whenever listening (re)starts: what was read before may have changed unseen. */
  private epoch = 0;
  private client: pg.Client | undefined;
  private listening = false;
  private started = false;
  private closed = false;
  private lost = false;
  private pingTimer: NodeJS.Timeout | undefined;
  private readonly pingEveryMs: number;
  private readonly pingTimeoutMs: number;
  private readonly retryMs: number;
  private observer: ChangesObserver | undefined;
  /** Attempts that failed in a row: the pause before the next one doubles with each. */
  private failures = 0;

  constructor(
    private readonly connection: pg.ClientConfig,
    options: PostgresChangesOptions = {},
  ) {
    this.pingEveryMs = options.pingEveryMs ?? PING_EVERY_MS;
    this.pingTimeoutMs = options.pingTimeoutMs ?? PING_TIMEOUT_MS;
    this.retryMs = options.retryMs ?? RETRY_MS;
    this.observer = options.onState;
  }

  /** Who is told when listening is lost and when it works again (the process's log). */
  observe(observer: ChangesObserver): void {
    this.observer = observer;
  }

  /** Rows of this topic may have changed. */
  note(topic: string): void {
    this.counts.set(topic, (this.counts.get(topic) ?? 0) + 1);
  }

  /**
   * A number that grows whenever rows of this topic may have changed, or undefined while this
   * process is not listening (then nothing may be cached). The first call starts listening.
   */
  version(topic: string): number | undefined {
    if (!this.started) this.start();
    if (!this.listening) return undefined;
    return this.epoch + (this.counts.get(topic) ?? 0);
  }

  /** Whether notices are being heard now (for tests and health). */
  get isListening(): boolean {
    return this.listening;
  }

  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    trackers.add(this);
    void this.listen();
  }

  async close(): Promise<void> {
    this.closed = true;
    trackers.delete(this);
    this.stopListening();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      ...this.connection,
      // The pool's statement timeouts do not fit a connection that idles on purpose.
      statement_timeout: undefined,
      query_timeout: undefined,
      idle_in_transaction_session_timeout: undefined,
      keepAlive: true,
      application_name: CHANGES_APPLICATION_NAME,
    });
    this.client = client;
    client.on('error', (err) => this.fail(client, err));
    client.on('end', () => this.fail(client, new Error('the connection ended')));
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) this.note(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      this.fail(client, err as Error);
      return;
    }
    if (this.client !== client || this.closed) return;
    // Notices sent before LISTEN took effect were never heard: everything read before is suspect.
    this.epoch += 1;
    this.listening = true;
    this.failures = 0;
    if (this.lost) this.observer?.('listening');
    this.lost = false;
    this.schedulePing(client);
  }

  private schedulePing(client: pg.Client): void {
    this.pingTimer = setTimeout(() => void this.ping(client), this.pingEveryMs);
    this.pingTimer.unref();
  }

  private async ping(client: pg.Client): Promise<void> {
    if (this.client !== client) return;
    // pg reads query_timeout from a query's config too; its types do not list it.
    const query: pg.QueryConfig & { query_timeout: number } = {
      text: 'select 1',
      query_timeout: this.pingTimeoutMs,
    };
    try {
      await client.query(query);
    } catch (err) {
      this.fail(client, err as Error);
      return;
    }
    if (this.client === client) this.schedulePing(client);
  }

  /** The connection failed or was lost: stop trusting versions and listen again after a pause. */
  private fail(client: pg.Client, err: Error): void {
    if (this.client !== client) return;
    this.stopListening();
    if (this.closed) return;
    if (!this.lost) this.observer?.('lost', err);
    this.lost = true;
    // A server that is down or overwhelmed is not asked again every second.
    const pause = Math.min(this.retryMs * 2 ** this.failures, Math.max(this.retryMs, MAX_RETRY_MS));
    this.failures += 1;
    setTimeout(() => void this.listen(), pause).unref();
  }

  private stopListening(): void {
    this.listening = false;
    clearTimeout(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    client.removeAllListeners('notification');
    client.on('error', () => {});
    void client.end().catch(() => {});
  }
}
