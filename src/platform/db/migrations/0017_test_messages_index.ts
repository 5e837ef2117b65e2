// Test messages of any kind by endpoint: Send test may now send an event kind's example, so the per
// endpoint limit counts every delivery that does not count toward pausing (test messages), not only
// `webhook.test` ones. The index serves that count as 0007's served the narrower one.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_test_messages_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'endpoint_id', 'created_at'])
    .where(sql.ref('counts_toward_pause'), '=', sql.lit(0))
    .execute();
  await db.schema.dropIndex('webhook_deliveries_tests_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_tests_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'endpoint_id', 'created_at'])
    .where(sql.ref('event_type'), '=', sql.lit('webhook.test'))
    .execute();
  await db.schema.dropIndex('webhook_deliveries_test_messages_idx').execute();
}
