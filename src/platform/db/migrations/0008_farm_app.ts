// What the farm app needs from the schema:
// - diary tasks can be marked done (done_at, done_by);
// - users have a language ('en' | 'vi', null = the default) and an optional e-mail, unique per
//   tenant among live users whatever its case;
// - alerts have a lifecycle (status 'active' → 'resolved') and can be acknowledged;
// - indexes for the Today page, one per part: open tasks by end, offline devices, active alerts,
//   harvest batches waiting for confirmation.
// SQLite cannot add a composite foreign key to an existing table, so there triggers keep the new
// user references inside the row's tenant; PostgreSQL gets the composite foreign keys.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

/** New user references: [table, column, constraint name]. */
const USER_REFERENCES = [
  ['diary_tasks', 'done_by', 'diary_tasks_done_by_fk'],
  ['iot_alerts', 'acknowledged_by', 'iot_alerts_acknowledged_by_fk'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);

  await db.schema.alterTable('diary_tasks').addColumn('done_at', 'bigint').execute();
  await db.schema.alterTable('diary_tasks').addColumn('done_by', 'integer').execute();

  await db.schema
    .alterTable('users')
    .addColumn('language', 'varchar(8)', (c) => c.check(sql`language in ('en', 'vi')`))
    .execute();
  await db.schema.alterTable('users').addColumn('email', 'varchar(254)').execute();
  await sql`
    create unique index users_tenant_email_live_key on users (tenant_id, lower(email))
    where deleted_at is null and email is not null`.execute(db);

  await db.schema
    .alterTable('iot_alerts')
    .addColumn('status', 'varchar(16)', (c) =>
      c.notNull().defaultTo('active').check(sql`status in ('active', 'resolved')`),
    )
    .execute();
  await db.schema.alterTable('iot_alerts').addColumn('resolved_at', 'bigint').execute();
  await db.schema.alterTable('iot_alerts').addColumn('acknowledged_at', 'bigint').execute();
  await db.schema.alterTable('iot_alerts').addColumn('acknowledged_by', 'integer').execute();

  for (const [table, column, name] of USER_REFERENCES) {
    if (pg) {
      await db.schema
        .alterTable(table)
        .addForeignKeyConstraint(name, ['tenant_id', column], 'users', ['tenant_id', 'id'])
        .execute();
    } else {
      const check = `when new.${column} is not null and not exists (
          select 1 from users where users.tenant_id = new.tenant_id and users.id = new.${column})
        begin select raise(abort, 'FOREIGN KEY constraint failed'); end`;
      await sql.raw(`create trigger ${name}_insert before insert on ${table} ${check}`).execute(db);
      await sql
        .raw(`create trigger ${name}_update before update of tenant_id, ${column} on ${table} ${check}`)
        .execute(db);
    }
  }

  // Today: overdue and current open tasks, the tenant's and one assignee's.
  await db.schema
    .createIndex('diary_tasks_open_end_idx')
    .on('diary_tasks')
    .columns(['tenant_id', 'end_at'])
    .where(sql.ref('deleted_at'), 'is', null)
    .where(sql.ref('done_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('diary_tasks_open_assignee_end_idx')
    .on('diary_tasks')
    .columns(['tenant_id', 'assigned_to', 'end_at'])
    .where(sql.ref('deleted_at'), 'is', null)
    .where(sql.ref('done_at'), 'is', null)
    .execute();
  // The alerts list by status, and Today's active alerts.
  await db.schema
    .createIndex('iot_alerts_tenant_status_idx')
    .on('iot_alerts')
    .columns(['tenant_id', 'status', 'id'])
    .execute();
  // Today: a tenant's offline devices, most recently gone first.
  await db.schema
    .createIndex('iot_devices_tenant_offline_idx')
    .on('iot_devices')
    .columns(['tenant_id', 'offline_at', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .where(sql.ref('is_online'), '=', 0)
    .execute();
  // Today: batches waiting for an owner's confirmation.
  await db.schema
    .createIndex('harvest_batches_tenant_declared_idx')
    .on('harvest_batches')
    .columns(['tenant_id', 'id'])
    .where(sql.ref('status'), '=', sql.lit('declared'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  for (const index of [
    'harvest_batches_tenant_declared_idx',
    'iot_devices_tenant_offline_idx',
    'iot_alerts_tenant_status_idx',
    'diary_tasks_open_assignee_end_idx',
    'diary_tasks_open_end_idx',
    'users_tenant_email_live_key',
  ]) {
    await db.schema.dropIndex(index).execute();
  }
  for (const [table, , name] of USER_REFERENCES) {
    if (pg) await db.schema.alterTable(table).dropConstraint(name).execute();
    else {
      await sql.raw(`drop trigger ${name}_insert`).execute(db);
      await sql.raw(`drop trigger ${name}_update`).execute(db);
    }
  }
  for (const column of ['acknowledged_by', 'acknowledged_at', 'resolved_at', 'status']) {
    await db.schema.alterTable('iot_alerts').dropColumn(column).execute();
  }
  for (const column of ['email', 'language'])
    await db.schema.alterTable('users').dropColumn(column).execute();
  for (const column of ['done_by', 'done_at'])
    await db.schema.alterTable('diary_tasks').dropColumn(column).execute();
}
