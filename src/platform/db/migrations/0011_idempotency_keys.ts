// Idempotency keys of API POSTs: the first answer to a tenant's key, kept 24 hours so a retry with
// the same key gets it again instead of doing the work twice. The primary key (tenant_id,
// idempotency_key) is the claim: one insert wins across every process sharing the database.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'varchar(255)', (c) => c.notNull())
    // SHA-256 of method, path and body: the same key with another request is refused.
    .addColumn('request_hash', 'char(64)', (c) => c.notNull())
    // Random per claim, so a process only settles or releases the claim it holds.
    .addColumn('claim_token', 'char(32)', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull().check(sql`state in ('in_flight', 'done')`))
    .addColumn('status_code', 'integer')
    // The answer's kept headers and body, encrypted (some answers show a secret once).
    .addColumn('answer', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'idempotency_key'])
    .execute();
  // The pruning job deletes expired keys of every tenant, oldest first.
  await db.schema
    .createIndex('idempotency_keys_expires_idx')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
