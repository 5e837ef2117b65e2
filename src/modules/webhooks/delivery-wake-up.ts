// Waking the delivery workers when deliveries are queued: NOTIFY at commit on PostgreSQL (every
// process hears it on its LISTEN connection), an in-process signal on SQLite.
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { type RawBuilder, sql } from 'kysely';
import type pg from 'pg';
import { isPostgresDb } from '../../platform/db/database.js';
import type { Db } from '../../platform/db/types.js';

export const NOTIFY_CHANNEL = 'furrow_webhook_deliveries';

/**
 * Wakes the workers of this process (SQLite; on PostgreSQL NOTIFY reaches every process). Its
 * 'wake' event carries the endpoints of the new deliveries when they are known (WakeUpEndpoints).
 */
export const localWakeUp = new EventEmitter();

/**
 * The endpoints whose deliveries a wake-up is about, by id; undefined when any may be (a release of
 * held deliveries, a retry by hand, listening again after a gap). A worker whose share of the slots
 * is full for every one of them has nothing to claim for it (worker.ts).
 */
export type WakeUpEndpoints = readonly number[] | undefined;

/**
 * Longest NOTIFY payload of endpoint ids (PostgreSQL allows just under 8,000 bytes): an event for
 * more endpoints than fit wakes the workers for any endpoint.
 */
const MAX_PAYLOAD = 4000;

/** The NOTIFY payload of a wake-up: the endpoint ids, comma-separated, or '' for any endpoint. */
export function wakeUpPayload(endpoints: WakeUpEndpoints): string {
  if (!endpoints || endpoints.length === 0) return '';
  const payload = [...new Set(endpoints)].join(',');
  return payload.length <= MAX_PAYLOAD ? payload : '';
}

/** The endpoints of a NOTIFY payload (wakeUpPayload); undefined (any endpoint) unless well formed. */
export function wakeUpEndpointsOf(payload: string | undefined): WakeUpEndpoints {
  if (!payload || !/^\d+(,\d+)*$/.test(payload)) return undefined;
  return payload.split(',').map(Number);
}

/**
 * Tells idle workers that deliveries are due, for `endpoints` (by id) when given. On PostgreSQL
 * the NOTIFY joins the caller's transaction and is delivered at commit (never for a rollback). On
 * SQLite the single connection is busy until the transaction ends, so a woken worker's claim runs
 * after the commit.
 */
export async function notifyDeliveryWorkers(db: Db, endpoints?: WakeUpEndpoints): Promise<void> {
  if (isPostgresDb(db)) {
    await sql`select ${wakeUpNotice(endpoints)}`.execute(db);
  } else {
    localWakeUp.emit('wake', endpoints && endpoints.length > 0 ? endpoints : undefined);
  }
}

/**
 * PostgreSQL: notifyDeliveryWorkers's NOTIFY as an expression, for a statement that queues the
 * deliveries too (insertDeliveries: one round trip).
 */
export function wakeUpNotice(endpoints?: WakeUpEndpoints): RawBuilder<unknown> {
  return sql`pg_notify(${NOTIFY_CHANNEL}, ${wakeUpPayload(endpoints)})`;
}

export interface DeliveryListenerOptions {
  /**
   * Called for every notification, with the endpoints it names, and once listening (again), for
   * any endpoint: anything queued meanwhile.
   */
  onWake: (endpoints?: WakeUpEndpoints) => void;
  /** Whether the worker still runs: a lost connection is replaced only then. */
  isRunning: () => boolean;
  /** The pause before listening again while the connection cannot be had, or once it is lost. */
  retryMs: number;
  logger?: FastifyBaseLogger | undefined;
}

/**
 * A worker's LISTEN connection on PostgreSQL (none on SQLite): taken from the pool, tried again
 * while it cannot be had or once it is lost, destroyed (never returned to the pool) at the end.
 */
export class DeliveryListener {
  private connection: pg.PoolClient | undefined;
  /** LISTEN attempts failed in a row: only the first is logged, and the recovery. */
  private failures = 0;

  constructor(
    private readonly pool: pg.Pool | undefined,
    private readonly options: DeliveryListenerOptions,
  ) {}

  async listen(): Promise<void> {
    const { pool } = this;
    const { onWake, isRunning, retryMs, logger } = this.options;
    if (!pool || !isRunning()) return;
    let client: pg.PoolClient | undefined;
    let released = false;
    // Destroyed rather than returned: a pooled connection must not keep listening. Once only, from
    // whichever of the error event and the failed LISTEN comes first.
    const onNotification = (message: pg.Notification) => onWake(wakeUpEndpointsOf(message.payload));
    const drop = (lost: pg.PoolClient) => {
      if (released) return;
      released = true;
      lost.removeListener('notification', onNotification);
      lost.release(true);
    };
    try {
      client = await pool.connect();
      const connection = client;
      connection.on('notification', onNotification);
      connection.once('error', (err) => {
        const wasListening = this.connection === connection;
        drop(connection);
        // An error during LISTEN fails that query too; its catch below tries again.
        if (!wasListening) return;
        this.connection = undefined;
        logger?.warn({ err: err.message }, 'webhook worker lost its LISTEN connection; reconnecting');
        this.failures = 1;
        if (isRunning()) setTimeout(() => void this.listen(), retryMs).unref();
      });
      await connection.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (!isRunning()) {
        drop(connection);
        return;
      }
      this.connection = connection;
      if (this.failures > 0) logger?.info('webhook worker listens again');
      this.failures = 0;
      onWake(); // anything queued while not listening
    } catch (err) {
      if (client) drop(client);
      if (this.failures++ === 0) {
        logger?.warn(
          { err: (err as Error).message },
          'webhook worker could not LISTEN; retrying every second',
        );
      }
      if (isRunning()) setTimeout(() => void this.listen(), retryMs).unref();
    }
  }

  /** Ends listening for good (the worker has stopped). */
  close(): void {
    const listener = this.connection;
    if (!listener) return;
    this.connection = undefined;
    listener.removeAllListeners('notification');
    listener.removeAllListeners('error');
    listener.on('error', () => {});
    // Destroyed rather than returned: a pooled connection must not keep listening.
    listener.release(true);
  }
}
