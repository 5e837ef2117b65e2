// The worker prunes an endpoint's delivery log after each finished delivery, keeping the newest
// LOG_SIZE finished ones: this index gives it those in order, so pruning reads LOG_SIZE entries
// whatever the number of queued deliveries of the endpoint.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_finished_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'endpoint_id', 'finished_at', 'id'])
    .where(sql.ref('status'), 'in', sql`('succeeded', 'failed')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_finished_idx').execute();
}
