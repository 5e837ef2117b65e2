// IoT devices, threshold rules and their edge state, readings, alerts; harvest batches.
// References to other tenant tables are composite (tenant_id, x_id) → (tenant_id, id).
import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import { isPostgres, withId } from './schema-helpers.js';

function tenantColumn<T extends string, C extends string>(table: CreateTableBuilder<T, C>) {
  return table.addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'));
}

export async function up(db: Kysely<any>): Promise<void> {
  const double = isPostgres(db) ? 'double precision' : 'real';

  await tenantColumn(withId(db, db.schema.createTable('iot_devices')))
    .addColumn('code', 'varchar(64)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('zone_id', 'integer')
    .addColumn('heartbeat_timeout_seconds', 'integer', (c) => c.notNull())
    .addColumn('last_heartbeat_at', 'bigint')
    .addColumn('is_online', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('offline_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addUniqueConstraint('iot_devices_tenant_id_id_key', ['tenant_id', 'id'])
    .addForeignKeyConstraint('iot_devices_zone_fk', ['tenant_id', 'zone_id'], 'zones', ['tenant_id', 'id'])
    .execute();
  // A code is unique among the tenant's live devices; a deleted device frees its code.
  await db.schema
    .createIndex('iot_devices_tenant_code_key')
    .on('iot_devices')
    .columns(['tenant_id', 'code'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('iot_devices_tenant_zone_idx')
    .on('iot_devices')
    .columns(['tenant_id', 'zone_id'])
    .execute();
  // The offline sweeper looks across tenants for online devices with an old heartbeat.
  await db.schema
    .createIndex('iot_devices_online_heartbeat_idx')
    .on('iot_devices')
    .columns(['is_online', 'last_heartbeat_at'])
    .execute();

  await tenantColumn(db.schema.createTable('iot_device_parcels'))
    .addColumn('device_id', 'integer', (c) => c.notNull())
    .addColumn('parcel_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('iot_device_parcels_pkey', ['tenant_id', 'device_id', 'parcel_id'])
    .addForeignKeyConstraint(
      'iot_device_parcels_device_fk',
      ['tenant_id', 'device_id'],
      'iot_devices',
      ['tenant_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint('iot_device_parcels_parcel_fk', ['tenant_id', 'parcel_id'], 'parcels', [
      'tenant_id',
      'id',
    ])
    .execute();

  await tenantColumn(withId(db, db.schema.createTable('iot_rules')))
    .addColumn('device_id', 'integer')
    .addColumn('zone_id', 'integer')
    .addColumn('metric', 'varchar(64)', (c) => c.notNull())
    .addColumn('operator', 'varchar(8)', (c) =>
      c.notNull().check(sql`operator in ('gt', 'gte', 'lt', 'lte')`),
    )
    .addColumn('threshold', double, (c) => c.notNull())
    .addColumn('severity', 'varchar(16)', (c) =>
      c.notNull().check(sql`severity in ('info', 'warning', 'critical')`),
    )
    .addColumn('message', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addUniqueConstraint('iot_rules_tenant_id_id_key', ['tenant_id', 'id'])
    .addCheckConstraint('iot_rules_one_target', sql`(device_id is null) <> (zone_id is null)`)
    .addForeignKeyConstraint('iot_rules_device_fk', ['tenant_id', 'device_id'], 'iot_devices', [
      'tenant_id',
      'id',
    ])
    .addForeignKeyConstraint('iot_rules_zone_fk', ['tenant_id', 'zone_id'], 'zones', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('iot_rules_tenant_device_idx')
    .on('iot_rules')
    .columns(['tenant_id', 'device_id'])
    .execute();
  await db.schema
    .createIndex('iot_rules_tenant_zone_idx')
    .on('iot_rules')
    .columns(['tenant_id', 'zone_id'])
    .execute();

  await tenantColumn(db.schema.createTable('iot_rule_states'))
    .addColumn('rule_id', 'integer', (c) => c.notNull())
    .addColumn('device_id', 'integer', (c) => c.notNull())
    .addColumn('breached', 'integer', (c) => c.notNull())
    .addColumn('last_recorded_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('iot_rule_states_pkey', ['tenant_id', 'rule_id', 'device_id'])
    .addForeignKeyConstraint(
      'iot_rule_states_rule_fk',
      ['tenant_id', 'rule_id'],
      'iot_rules',
      ['tenant_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'iot_rule_states_device_fk',
      ['tenant_id', 'device_id'],
      'iot_devices',
      ['tenant_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();

  // Readings grow to millions of rows: a bigint key, and one index that serves "this device's
  // readings over time" (charts, audits).
  const readings = isPostgres(db)
    ? db.schema
        .createTable('iot_readings')
        .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : db.schema.createTable('iot_readings').addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await tenantColumn(readings)
    .addColumn('device_id', 'integer', (c) => c.notNull())
    .addColumn('metric', 'varchar(64)', (c) => c.notNull())
    .addColumn('value', double, (c) => c.notNull())
    .addColumn('recorded_at', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('iot_readings_device_fk', ['tenant_id', 'device_id'], 'iot_devices', [
      'tenant_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('iot_readings_device_time_idx')
    .on('iot_readings')
    .columns(['tenant_id', 'device_id', 'recorded_at'])
    .execute();

  await tenantColumn(withId(db, db.schema.createTable('iot_alerts')))
    .addColumn('rule_id', 'integer', (c) => c.notNull())
    .addColumn('device_id', 'integer', (c) => c.notNull())
    .addColumn('metric', 'varchar(64)', (c) => c.notNull())
    .addColumn('value', double, (c) => c.notNull())
    .addColumn('threshold', double, (c) => c.notNull())
    .addColumn('operator', 'varchar(8)', (c) => c.notNull())
    .addColumn('severity', 'varchar(16)', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('iot_alerts_tenant_id_id_key', ['tenant_id', 'id'])
    .addForeignKeyConstraint('iot_alerts_rule_fk', ['tenant_id', 'rule_id'], 'iot_rules', ['tenant_id', 'id'])
    .addForeignKeyConstraint('iot_alerts_device_fk', ['tenant_id', 'device_id'], 'iot_devices', [
      'tenant_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('iot_alerts_tenant_device_idx')
    .on('iot_alerts')
    .columns(['tenant_id', 'device_id'])
    .execute();

  await tenantColumn(withId(db, db.schema.createTable('harvest_batches')))
    .addColumn('parcel_id', 'integer', (c) => c.notNull())
    .addColumn('crop_type_id', 'integer', (c) => c.notNull())
    .addColumn('quantity_kg', double, (c) => c.notNull().check(sql`quantity_kg > 0`))
    .addColumn('harvested_at', 'bigint', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('status', 'varchar(16)', (c) => c.notNull().check(sql`status in ('declared', 'confirmed')`))
    .addColumn('declared_by', 'integer')
    .addColumn('confirmed_by', 'integer')
    .addColumn('confirmed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('harvest_batches_tenant_id_id_key', ['tenant_id', 'id'])
    .addForeignKeyConstraint('harvest_batches_parcel_fk', ['tenant_id', 'parcel_id'], 'parcels', [
      'tenant_id',
      'id',
    ])
    .addForeignKeyConstraint('harvest_batches_crop_type_fk', ['tenant_id', 'crop_type_id'], 'crop_types', [
      'tenant_id',
      'id',
    ])
    .addForeignKeyConstraint('harvest_batches_declared_by_fk', ['tenant_id', 'declared_by'], 'users', [
      'tenant_id',
      'id',
    ])
    .addForeignKeyConstraint('harvest_batches_confirmed_by_fk', ['tenant_id', 'confirmed_by'], 'users', [
      'tenant_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('harvest_batches_tenant_harvested_idx')
    .on('harvest_batches')
    .columns(['tenant_id', 'harvested_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'harvest_batches',
    'iot_alerts',
    'iot_readings',
    'iot_rule_states',
    'iot_rules',
    'iot_device_parcels',
    'iot_devices',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
