// The specification's resources and the reference data they point to. Every table is tenant-owned:
// UNIQUE (tenant_id, id), composite foreign keys (tenant_id, x_id) → (tenant_id, id), soft delete.
import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import { isPostgres, withId, withTimestamps } from './schema-helpers.js';

type Columns = (table: CreateTableBuilder<string, any>) => CreateTableBuilder<string, any>;

/** id, tenant_id → tenants, the table's own columns, created_at/updated_at/deleted_at, UNIQUE (tenant_id, id). */
async function createTenantTable(db: Kysely<any>, name: string, columns: Columns): Promise<void> {
  const base = withId(db, db.schema.createTable(name)).addColumn('tenant_id', 'integer', (c) =>
    c.notNull().references('tenants.id'),
  );
  await withTimestamps(columns(base))
    .addColumn('deleted_at', 'bigint')
    .addUniqueConstraint(`${name}_tenant_id_id_key`, ['tenant_id', 'id'])
    .execute();
}

/** The list query's index: live rows of one tenant, newest first. */
async function createListIndex(db: Kysely<any>, table: string, columns: string[] = ['tenant_id', 'id']) {
  await db.schema
    .createIndex(`${table}_${columns.slice(1).join('_')}_live_idx`)
    .on(table)
    .columns(columns)
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
}

function ref(table: CreateTableBuilder<string, any>, name: string, column: string, target: string) {
  return table.addForeignKeyConstraint(name, ['tenant_id', column], target, ['tenant_id', 'id']);
}

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const real = pg ? 'double precision' : 'real';

  await createTenantTable(db, 'farms', (t) =>
    t
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('surface', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('lat', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('lng', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('address', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('published', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('ownership', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('order', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('avatar', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('created_by', 'integer'),
  );
  await createListIndex(db, 'farms');

  for (const place of ['blocks', 'zones']) {
    await createTenantTable(db, place, (t) =>
      ref(
        t.addColumn('name', 'text', (c) => c.notNull()).addColumn('farm_id', 'integer', (c) => c.notNull()),
        `${place}_farm_fk`,
        'farm_id',
        'farms',
      ),
    );
    await createListIndex(db, place);
    await createListIndex(db, place, ['tenant_id', 'farm_id']);
  }

  await createTenantTable(db, 'parcels', (t) =>
    ref(
      ref(
        ref(
          t
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('code', 'text', (c) => c.notNull().defaultTo(''))
            .addColumn('farm_id', 'integer', (c) => c.notNull())
            .addColumn('block_id', 'integer')
            .addColumn('zone_id', 'integer')
            .addColumn('area', real),
          'parcels_farm_fk',
          'farm_id',
          'farms',
        ),
        'parcels_block_fk',
        'block_id',
        'blocks',
      ),
      'parcels_zone_fk',
      'zone_id',
      'zones',
    ),
  );
  await createListIndex(db, 'parcels');
  await createListIndex(db, 'parcels', ['tenant_id', 'zone_id']);

  await createTenantTable(db, 'crop_types', (t) =>
    ref(
      t
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('parent_id', 'integer')
        .addColumn('images', 'text'),
      'crop_types_parent_fk',
      'parent_id',
      'crop_types',
    ),
  );
  await createListIndex(db, 'crop_types');

  await createTenantTable(db, 'product_categories', (t) =>
    ref(
      t
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('code', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('parent_id', 'integer'),
      'product_categories_parent_fk',
      'parent_id',
      'product_categories',
    ),
  );
  await createListIndex(db, 'product_categories');

  await createTenantTable(db, 'crops', (t) =>
    ref(
      ref(
        t
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('crop_type_id', 'integer')
          .addColumn('category_id', 'integer')
          .addColumn('image', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('images', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('full_description', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('sku', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('code', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('price', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1)),
        'crops_crop_type_fk',
        'crop_type_id',
        'crop_types',
      ),
      'crops_category_fk',
      'category_id',
      'product_categories',
    ),
  );
  await createListIndex(db, 'crops');
  await createListIndex(db, 'crops', ['tenant_id', 'price']);

  await createTenantTable(db, 'diary_categories', (t) => t.addColumn('name', 'text', (c) => c.notNull()));
  await createListIndex(db, 'diary_categories');

  await createTenantTable(db, 'diary_subcategories', (t) =>
    ref(
      t
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('category_task_id', 'integer', (c) => c.notNull()),
      'diary_subcategories_category_fk',
      'category_task_id',
      'diary_categories',
    ),
  );
  await createListIndex(db, 'diary_subcategories');

  await createTenantTable(db, 'season_templates', (t) =>
    ref(
      ref(
        t
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('description', 'text')
          .addColumn('crop_type', 'text')
          .addColumn('crop_id', 'integer', (c) => c.notNull())
          .addColumn('order', 'integer')
          .addColumn('block_id', 'integer'),
        'season_templates_crop_fk',
        'crop_id',
        'crops',
      ),
      'season_templates_block_fk',
      'block_id',
      'blocks',
    ),
  );
  await createListIndex(db, 'season_templates');
  await createListIndex(db, 'season_templates', ['tenant_id', 'created_at']);

  await createTenantTable(db, 'seasons', (t) => {
    let table = t
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      // Dates as YYYY-MM-DD text: they sort and compare as dates on both dialects.
      .addColumn('start_date', 'text')
      .addColumn('end_date', 'text')
      .addColumn('description', 'text')
      .addColumn('season_template_id', 'integer')
      .addColumn('crop_id', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('Pending'))
      .addColumn('image', 'text')
      .addColumn('images', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('full_description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('note_private', 'text')
      .addColumn('warning_info', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('promotion_info', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('manufacturers', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('vendors', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('attach_files', 'text')
      .addColumn('product_id', 'integer');
    for (const n of [1, 2, 3, 4]) {
      table = table.addColumn(`season_custom_field${n}`, 'text', (c) => c.notNull().defaultTo(''));
    }
    table = table
      .addColumn('season_custom_field5', 'text')
      .addColumn('block_id', 'integer')
      .addColumn('farm_id', 'integer')
      .addColumn('amount', 'bigint', (c) => c.defaultTo(0))
      .addColumn('area', 'bigint', (c) => c.defaultTo(0))
      .addColumn('count_temp', 'integer', (c) => c.defaultTo(0))
      .addColumn('temp_from', 'integer', (c) => c.defaultTo(0))
      .addColumn('temp_to', 'integer', (c) => c.defaultTo(0));
    table = ref(table, 'seasons_template_fk', 'season_template_id', 'season_templates');
    table = ref(table, 'seasons_crop_fk', 'crop_id', 'crops');
    table = ref(table, 'seasons_block_fk', 'block_id', 'blocks');
    return ref(table, 'seasons_farm_fk', 'farm_id', 'farms');
  });
  await createListIndex(db, 'seasons');
  // Season codes are unique per tenant among live seasons (a deleted season frees its code).
  await db.schema
    .createIndex('seasons_tenant_code_live_key')
    .on('seasons')
    .columns(['tenant_id', 'code'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await createListIndex(db, 'seasons', ['tenant_id', 'start_date']);

  await createTenantTable(db, 'diary_tasks', (t) => {
    let table = t
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('start_at', 'bigint')
      .addColumn('end_at', 'bigint')
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('images', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('location', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('category_task_id', 'integer')
      .addColumn('assigned_to', 'integer')
      .addColumn('season_id', 'integer')
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('amount', 'bigint');
    table = ref(table, 'diary_tasks_category_fk', 'category_task_id', 'diary_categories');
    table = ref(table, 'diary_tasks_assigned_fk', 'assigned_to', 'users');
    table = ref(table, 'diary_tasks_season_fk', 'season_id', 'seasons');
    return ref(table, 'diary_tasks_user_fk', 'user_id', 'users');
  });
  await createListIndex(db, 'diary_tasks');
  await createListIndex(db, 'diary_tasks', ['tenant_id', 'start_at']);

  await db.schema
    .createTable('diary_task_subcategories')
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('task_id', 'integer', (c) => c.notNull())
    .addColumn('sub_cate_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('diary_task_subcategories_pkey', ['tenant_id', 'task_id', 'sub_cate_id'])
    .addForeignKeyConstraint(
      'diary_task_subcategories_task_fk',
      ['tenant_id', 'task_id'],
      'diary_tasks',
      ['tenant_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint(
      'diary_task_subcategories_sub_cate_fk',
      ['tenant_id', 'sub_cate_id'],
      'diary_subcategories',
      ['tenant_id', 'id'],
    )
    .execute();

  if (pg) {
    // Case-insensitive substring search (search[name], strSearch[]) uses trigram indexes on PostgreSQL.
    await sql`create extension if not exists pg_trgm`.execute(db);
    const searched: [string, string][] = [
      ['crops', 'name'],
      ['crops', 'code'],
      ['crops', 'sku'],
      ['seasons', 'name'],
      ['seasons', 'code'],
      ['season_templates', 'name'],
      ['diary_tasks', 'name'],
    ];
    for (const [table, column] of searched) {
      await sql
        .raw(`create index ${table}_${column}_trgm_idx on ${table} using gin (${column} gin_trgm_ops)`)
        .execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'diary_task_subcategories',
    'diary_tasks',
    'seasons',
    'season_templates',
    'diary_subcategories',
    'diary_categories',
    'crops',
    'product_categories',
    'crop_types',
    'parcels',
    'zones',
    'blocks',
    'farms',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
