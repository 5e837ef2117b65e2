// PostgreSQL checks two foreign keys on every reading stored: its (tenant_id, device_id) against the
// devices and its tenant_id against the tenants. The second follows from the first (a device
// belongs to a live tenant by its own foreign key) and cost a quarter of the server's work per
// batch of readings (bench/README.md, ingestion): it goes. SQLite keeps its schema (dropping a
// foreign key there means making the table again, and its checks are cheap in-process lookups).
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter table iot_readings drop constraint if exists iot_readings_tenant_id_fkey`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter table iot_readings add constraint iot_readings_tenant_id_fkey
    foreign key (tenant_id) references tenants (id)`.execute(db);
}
