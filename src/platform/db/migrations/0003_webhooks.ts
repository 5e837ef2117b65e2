// Webhook endpoints, their deliveries (the outbox and the log) and every attempt of a delivery.
import { type Kysely, sql } from 'kysely';
import { withId } from './schema-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('webhook_endpoints'))
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('public_id', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull().check(sqlIn('status', ['active', 'paused'])))
    .addColumn('paused_reason', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('webhook_endpoints_tenant_id_id_key', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_tenant_idx')
    .on('webhook_endpoints')
    .columns(['tenant_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('endpoint_id', 'integer', (c) => c.notNull())
    .addColumn('public_id', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('event_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) =>
      c.notNull().check(sqlIn('status', ['pending', 'retrying', 'succeeded', 'failed', 'held'])),
    )
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    // null: as many as WEBHOOK_RETRY_SCHEDULE allows; 1 for tests; one more for a redelivery.
    .addColumn('max_attempts', 'integer')
    .addColumn('counts_toward_pause', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'bigint')
    .addColumn('request_headers', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addUniqueConstraint('webhook_deliveries_tenant_id_id_key', ['tenant_id', 'id'])
    .addForeignKeyConstraint(
      'webhook_deliveries_endpoint_fk',
      ['tenant_id', 'endpoint_id'],
      'webhook_endpoints',
      ['tenant_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // The worker's claim: due deliveries in order.
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'id'])
    .where(sql.ref('status'), 'in', sql`('pending', 'retrying')`)
    .execute();
  // The log and pruning: one endpoint's deliveries, newest first.
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'endpoint_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('webhook_attempts'))
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('delivery_id', 'integer', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .addUniqueConstraint('webhook_attempts_tenant_id_id_key', ['tenant_id', 'id'])
    .addForeignKeyConstraint(
      'webhook_attempts_delivery_fk',
      ['tenant_id', 'delivery_id'],
      'webhook_deliveries',
      ['tenant_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery_idx')
    .on('webhook_attempts')
    .columns(['tenant_id', 'delivery_id', 'number'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']) {
    await db.schema.dropTable(table).execute();
  }
}

function sqlIn(column: string, values: string[]) {
  // Values are constants of this migration, never user input.
  return sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`);
}
