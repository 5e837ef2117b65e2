// Real sensors and notifications: LoRaWAN device EUIs, network-server events stored once, devices
// heard of but not yet adopted, MQTT sources (one worker subscribes to each, under a lease), the
// alert lifecycle (clear threshold, minimum duration), who is e-mailed of what, and the mail outbox
// the worker sends from.
import { type Kysely, sql } from 'kysely';
import { isPostgres, withId } from './schema-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  const double = isPostgres(db) ? 'double precision' : 'real';

  // LoRaWAN devices are known by their DevEUI (16 hex digits, lower case), unique among live devices.
  await db.schema.alterTable('iot_devices').addColumn('dev_eui', 'varchar(16)').execute();
  await db.schema
    .createIndex('iot_devices_tenant_dev_eui_key')
    .on('iot_devices')
    .columns(['tenant_id', 'dev_eui'])
    .unique()
    .where(sql<boolean>`deleted_at is null and dev_eui is not null`)
    .execute();

  // Alert lifecycle: the value must be back past clear_threshold (null: the threshold) to resolve,
  // and beyond the threshold for min_duration_seconds before an alert is raised.
  await db.schema.alterTable('iot_rules').addColumn('clear_threshold', double).execute();
  await db.schema
    .alterTable('iot_rules')
    .addColumn('min_duration_seconds', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // recorded_at of the first reading of a breach not yet long enough to alert; null otherwise.
  await db.schema.alterTable('iot_rule_states').addColumn('pending_since', 'bigint').execute();
  // The alert this rule and device have active, resolved when the value clears.
  await db.schema.alterTable('iot_rule_states').addColumn('active_alert_id', 'integer').execute();

  // Events from network servers and brokers already stored: (tenant, source-given id) seen once.
  await db.schema
    .createTable('iot_ingest_keys')
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('ingest_key', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('iot_ingest_keys_pkey', ['tenant_id', 'ingest_key'])
    .execute();
  await db.schema
    .createIndex('iot_ingest_keys_created_idx')
    .on('iot_ingest_keys')
    .column('created_at')
    .execute();

  // Devices a network server or broker sent data for that no live device claims, for adoption.
  await db.schema
    .createTable('iot_unclaimed_devices')
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('dev_eui', 'varchar(64)', (c) => c.notNull())
    // chirpstack, tts or mqtt
    .addColumn('source', 'varchar(16)', (c) => c.notNull())
    // The name the network server knows it by, if any.
    .addColumn('name', 'varchar(255)')
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('seen_count', 'bigint', (c) => c.notNull())
    // The last decoded payload as JSON text (cut to 4 KB).
    .addColumn('last_payload', 'text')
    .addPrimaryKeyConstraint('iot_unclaimed_devices_pkey', ['tenant_id', 'dev_eui'])
    .execute();

  // MQTT brokers a tenant's sensors publish to; the worker that holds the lease subscribes.
  await withId(db, db.schema.createTable('iot_mqtt_sources'))
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('username', 'varchar(255)')
    // Encrypted with the service's secret key, like webhook secrets.
    .addColumn('password_encrypted', 'text')
    // JSON array of topic filters.
    .addColumn('topics', 'text', (c) => c.notNull())
    .addColumn('format', 'varchar(16)', (c) =>
      c.notNull().check(sql`format in ('chirpstack', 'tts', 'furrow')`),
    )
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('connected', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_message_at', 'bigint')
    .addColumn('last_error', 'varchar(1000)')
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addUniqueConstraint('iot_mqtt_sources_tenant_id_id_key', ['tenant_id', 'id'])
    .execute();
  await countLiveRows(db, 'iot_mqtt_sources');
  await db.schema
    .createIndex('iot_mqtt_sources_lease_idx')
    .on('iot_mqtt_sources')
    .columns(['deleted_at', 'lease_until'])
    .execute();

  // Who is e-mailed of critical alerts and offline devices; one row per tenant once set.
  await db.schema
    .createTable('notification_settings')
    .addColumn('tenant_id', 'integer', (c) => c.notNull().primaryKey().references('tenants.id'))
    .addColumn('email_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('min_severity', 'varchar(16)', (c) =>
      c.notNull().defaultTo('critical').check(sql`min_severity in ('info', 'warning', 'critical')`),
    )
    // JSON array of user ids.
    .addColumn('user_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // Mail waiting to be sent, written in the transaction of what it tells; the worker sends it.
  await withId(db, db.schema.createTable('mail_outbox'))
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    // What it is about: iot.alert.raised, iot.device.offline, webhook.endpoint.paused …
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('to_address', 'varchar(254)', (c) => c.notNull())
    .addColumn('subject', 'varchar(998)', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) =>
      c.notNull().check(sql`status in ('pending', 'sent', 'failed')`),
    )
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'varchar(1000)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addUniqueConstraint('mail_outbox_tenant_id_id_key', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('mail_outbox_due_idx')
    .on('mail_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();
}

/** The live-row count triggers every record table has (as migration 0005 gave the others). */
async function countLiveRows(db: Kysely<any>, table: string): Promise<void> {
  if (isPostgres(db)) {
    for (const [event, transition] of [
      ['insert', 'new table as new_rows'],
      ['update', 'old table as old_rows new table as new_rows'],
      ['delete', 'old table as old_rows'],
    ] as const) {
      await sql
        .raw(
          `create trigger ${table}_count_${event} after ${event} on ${table} ` +
            `referencing ${transition} for each statement execute function furrow_count_live_rows()`,
        )
        .execute(db);
    }
    return;
  }
  const count = (tenant: string, delta: string) =>
    `insert into record_counts (tenant_id, table_name, live_count) values (${tenant}, '${table}', ${delta})
     on conflict (tenant_id, table_name) do update set live_count = live_count + excluded.live_count;`;
  await sql
    .raw(
      `create trigger ${table}_count_insert after insert on ${table} when new.deleted_at is null
       begin ${count('new.tenant_id', '1')} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger ${table}_count_update after update of deleted_at on ${table}
       when (old.deleted_at is null) <> (new.deleted_at is null)
       begin ${count('new.tenant_id', 'case when new.deleted_at is null then 1 else -1 end')} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger ${table}_count_delete after delete on ${table} when old.deleted_at is null
       begin ${count('old.tenant_id', '-1')} end`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mail_outbox').execute();
  await db.schema.dropTable('notification_settings').execute();
  await db.schema.dropTable('iot_mqtt_sources').execute();
  await db.schema.dropTable('iot_unclaimed_devices').execute();
  await db.schema.dropTable('iot_ingest_keys').execute();
  await db.schema.alterTable('iot_rule_states').dropColumn('active_alert_id').execute();
  await db.schema.alterTable('iot_rule_states').dropColumn('pending_since').execute();
  await db.schema.alterTable('iot_rules').dropColumn('min_duration_seconds').execute();
  await db.schema.alterTable('iot_rules').dropColumn('clear_threshold').execute();
  await db.schema.dropIndex('iot_devices_tenant_dev_eui_key').execute();
  await db.schema.alterTable('iot_devices').dropColumn('dev_eui').execute();
}
