// Webhooks, second stage: a rotated secret keeps signing until it expires, owners' own headers and
// per-kind data filters on an endpoint.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The secret before the last rotation, encrypted like the current one, and when it stops signing.
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_encrypted', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', 'bigint').execute();
  // JSON object of request headers the owner set (at most 10), or null.
  await db.schema.alterTable('webhook_endpoints').addColumn('headers', 'text').execute();
  // JSON object: event kind → {data field: [allowed values]}, or null for every event.
  await db.schema.alterTable('webhook_endpoints').addColumn('filters', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['filters', 'headers', 'previous_secret_expires_at', 'previous_secret_encrypted'])
    await db.schema.alterTable('webhook_endpoints').dropColumn(column).execute();
}
