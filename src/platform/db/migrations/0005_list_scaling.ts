// What keeps list reads as fast with a million rows in a tenant as with ten thousand:
// - record_counts: each tenant's number of live rows per table, kept by triggers, so an unfiltered
//   list's total is one row instead of a count over every row;
// - task_span_limits: each tenant's widest start-to-end span of a diary task, kept by triggers, so a
//   date-range filter scans the start_at index from `from - span` instead of from the beginning;
// - SQLite only: FTS5 trigram indexes of the searched columns, kept by triggers, for substring search
//   (PostgreSQL has pg_trgm indexes since 0002).
// Triggers keep them right whoever writes: the service, the CLI, another process, plain SQL.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

/** Tenant-owned tables with soft delete, as of this migration. */
const COUNTED = [
  'farms',
  'blocks',
  'zones',
  'parcels',
  'crop_types',
  'product_categories',
  'crops',
  'diary_categories',
  'diary_subcategories',
  'season_templates',
  'seasons',
  'diary_tasks',
  'users',
  'iot_devices',
  'iot_rules',
];

/** Columns searched by substring, as of this migration (the same as the pg_trgm indexes of 0002). */
const SEARCHED: Record<string, string[]> = {
  crops: ['name', 'code', 'sku'],
  seasons: ['name', 'code'],
  season_templates: ['name'],
  diary_tasks: ['name'],
};

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable('record_counts')
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('table_name', 'varchar(63)', (c) => c.notNull())
    .addColumn('live_count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('record_counts_pkey', ['tenant_id', 'table_name'])
    .execute();
  await db.schema
    .createTable('task_span_limits')
    .addColumn('tenant_id', 'integer', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('widest_span', 'bigint', (c) => c.notNull())
    .execute();

  if (pg) await postgresTriggers(db);
  else await sqliteTriggers(db);

  for (const table of COUNTED) {
    await sql`
      insert into record_counts (tenant_id, table_name, live_count)
      select tenant_id, ${sql.lit(table)}, count(*) from ${sql.table(table)}
      where deleted_at is null group by tenant_id`.execute(db);
  }
  await sql`
    insert into task_span_limits (tenant_id, widest_span)
    select tenant_id, max(case when end_at > start_at then end_at - start_at else 0 end)
    from diary_tasks group by tenant_id`.execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  // Statement triggers with transition tables: a bulk insert costs one upsert, not one per row.
  await sql`
    create function furrow_count_live_rows() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into record_counts (tenant_id, table_name, live_count)
        select tenant_id, tg_table_name, count(*) from new_rows where deleted_at is null group by tenant_id
        on conflict (tenant_id, table_name)
        do update set live_count = record_counts.live_count + excluded.live_count;
      elsif tg_op = 'DELETE' then
        insert into record_counts (tenant_id, table_name, live_count)
        select tenant_id, tg_table_name, -count(*) from old_rows where deleted_at is null group by tenant_id
        on conflict (tenant_id, table_name)
        do update set live_count = record_counts.live_count + excluded.live_count;
      else
        insert into record_counts (tenant_id, table_name, live_count)
        select tenant_id, tg_table_name, sum(delta) from (
          select tenant_id, case when deleted_at is null then 1 else 0 end as delta from new_rows
          union all
          select tenant_id, case when deleted_at is null then -1 else 0 end from old_rows
        ) changes group by tenant_id having sum(delta) <> 0
        on conflict (tenant_id, table_name)
        do update set live_count = record_counts.live_count + excluded.live_count;
      end if;
      return null;
    end $$`.execute(db);
  for (const table of COUNTED) {
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
  }

  await sql`
    create function furrow_widen_task_span() returns trigger language plpgsql as $$
    begin
      insert into task_span_limits (tenant_id, widest_span)
      select tenant_id, max(case when end_at > start_at then end_at - start_at else 0 end)
      from new_rows group by tenant_id
      on conflict (tenant_id)
      do update set widest_span = greatest(task_span_limits.widest_span, excluded.widest_span);
      return null;
    end $$`.execute(db);
  for (const event of ['insert', 'update']) {
    await sql
      .raw(
        `create trigger diary_tasks_span_${event} after ${event} on diary_tasks ` +
          'referencing new table as new_rows for each statement execute function furrow_widen_task_span()',
      )
      .execute(db);
  }
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const count = (tenant: string, table: string, delta: string) =>
    `insert into record_counts (tenant_id, table_name, live_count) values (${tenant}, '${table}', ${delta})
     on conflict (tenant_id, table_name) do update set live_count = live_count + excluded.live_count;`;
  for (const table of COUNTED) {
    await sql
      .raw(
        `create trigger ${table}_count_insert after insert on ${table} when new.deleted_at is null
         begin ${count('new.tenant_id', table, '1')} end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_count_update after update of deleted_at on ${table}
         when (old.deleted_at is null) <> (new.deleted_at is null)
         begin ${count('new.tenant_id', table, 'case when new.deleted_at is null then 1 else -1 end')} end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_count_delete after delete on ${table} when old.deleted_at is null
         begin ${count('old.tenant_id', table, '-1')} end`,
      )
      .execute(db);
  }

  const widen = `insert into task_span_limits (tenant_id, widest_span)
    values (new.tenant_id, case when new.end_at > new.start_at then new.end_at - new.start_at else 0 end)
    on conflict (tenant_id) do update set widest_span = max(widest_span, excluded.widest_span);`;
  await sql
    .raw(`create trigger diary_tasks_span_insert after insert on diary_tasks begin ${widen} end`)
    .execute(db);
  await sql
    .raw(
      `create trigger diary_tasks_span_update after update of start_at, end_at on diary_tasks begin ${widen} end`,
    )
    .execute(db);

  for (const [table, columns] of Object.entries(SEARCHED)) {
    const search = `${table}_search`;
    const list = columns.join(', ');
    const values = (row: string) => columns.map((c) => `${row}.${c}`).join(', ');
    await sql
      .raw(
        `create virtual table ${search} using fts5(${list}, content='${table}', content_rowid='id', ` +
          `tokenize='trigram case_sensitive 0')`,
      )
      .execute(db);
    const remove = `insert into ${search} (${search}, rowid, ${list}) values ('delete', old.id, ${values('old')});`;
    const add = `insert into ${search} (rowid, ${list}) values (new.id, ${values('new')});`;
    await sql.raw(`create trigger ${search}_insert after insert on ${table} begin ${add} end`).execute(db);
    await sql.raw(`create trigger ${search}_delete after delete on ${table} begin ${remove} end`).execute(db);
    await sql
      .raw(`create trigger ${search}_update after update of ${list} on ${table} begin ${remove} ${add} end`)
      .execute(db);
    await sql.raw(`insert into ${search} (${search}) values ('rebuild')`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const table of COUNTED) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql.raw(`drop trigger ${table}_count_${event} on ${table}`).execute(db);
      }
    }
    for (const event of ['insert', 'update']) {
      await sql.raw(`drop trigger diary_tasks_span_${event} on diary_tasks`).execute(db);
    }
    await sql`drop function furrow_count_live_rows()`.execute(db);
    await sql`drop function furrow_widen_task_span()`.execute(db);
  } else {
    for (const table of COUNTED) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql.raw(`drop trigger ${table}_count_${event}`).execute(db);
      }
    }
    for (const event of ['insert', 'update'])
      await sql.raw(`drop trigger diary_tasks_span_${event}`).execute(db);
    for (const table of Object.keys(SEARCHED)) {
      for (const event of ['insert', 'delete', 'update']) {
        await sql.raw(`drop trigger ${table}_search_${event}`).execute(db);
      }
      await sql.raw(`drop table ${table}_search`).execute(db);
    }
  }
  await db.schema.dropTable('task_span_limits').execute();
  await db.schema.dropTable('record_counts').execute();
}
