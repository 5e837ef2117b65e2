// Indexes for sharing the delivery worker fairly.
// - The queue by endpoint: the claim reaches every endpoint's due deliveries, even behind a long
//   backlog of one receiver that is at its cap. It lists the endpoints with queued deliveries (one
//   index step each) and gives each one's first due deliveries in order.
// - Test messages by endpoint: Send test is limited per endpoint, counted from these rows (the
//   queued ones and the ones still in the endpoint's log, a few dozen at most).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_queue_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'next_attempt_at', 'id'])
    .where(sql.ref('status'), 'in', sql`('pending', 'retrying')`)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_tests_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'endpoint_id', 'created_at'])
    .where(sql.ref('event_type'), '=', sql.lit('webhook.test'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_tests_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_queue_idx').execute();
}
