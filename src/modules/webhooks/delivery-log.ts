// The delivery log: an endpoint keeps its newest LOG_SIZE finished deliveries (spec 8).
import { type SqlBool, sql } from 'kysely';
import type { Db } from '../../platform/db/types.js';

/** Finished deliveries kept per endpoint for the log (spec 8). */
export const LOG_SIZE = 50;

/**
 * Written into the SQL rather than bound as parameters: the partial index of finished deliveries
 * serves the query only when its condition visibly implies the index's (SQLite never looks inside
 * a parameter).
 */
const FINISHED = sql<SqlBool>`webhook_deliveries.status in ('succeeded', 'failed')`;

/** Keeps the newest LOG_SIZE finished deliveries of an endpoint; queued ones are never pruned. */
export async function pruneDeliveryLog(db: Db, tenantId: number, endpointId: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where(FINISHED)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('endpoint_id', '=', endpointId)
        .where(FINISHED)
        .orderBy('finished_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1_000_000)
        .offset(LOG_SIZE),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
