// Waking the delivery workers when deliveries are queued: NOTIFY at commit on PostgreSQL (every
// process hears it on its LISTEN connection), an in-process signal on SQLite.
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import type { Db } from '../../platform/db/types.js';

export const NOTIFY_CHANNEL = 'furrow_webhook_deliveries';

/** Wakes the workers of this process (SQLite; on PostgreSQL NOTIFY reaches every process). */
export const localWakeUp = new EventEmitter();

/**
 * Tells idle workers that deliveries are due. On PostgreSQL the NOTIFY joins the caller's
 * transaction and is delivered at commit (never for a rollback). On SQLite the single connection
 * is busy until the transaction ends, so a woken worker's claim runs after the commit.
 */
export async function notifyDeliveryWorkers(db: Db): Promise<void> {
  if (isPostgresDb(db)) await sql`select pg_notify(${NOTIFY_CHANNEL}, '')`.execute(db);
  else localWakeUp.emit('wake');
}
