// Keys that lead with tenant_id, so every tenant table can be distributed by tenant_id (co-located
// shards, e.g. Citus) with each key checked within one tenant's shard. On PostgreSQL each record
// table's primary key becomes (tenant_id, id) in place of (id) beside a unique (tenant_id, id); the
// composite foreign keys, which name (tenant_id, id), are dropped and made again on the new key.
// Public ids become unique per tenant (every lookup by one is tenant-scoped; they are random, so
// nothing depends on a global index). Token and key hashes stay unique across tenants: they are
// looked up before any tenant is known, and those two tables would be reference tables.
// On SQLite an INTEGER PRIMARY KEY is the rowid that makes the ids: it stays, with a unique
// (tenant_id, id) beside it on every such table.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

/** Tables whose primary key was their identity `id` alone. */
const ID_KEYED = [
  'access_tokens',
  'api_keys',
  'blocks',
  'crop_types',
  'crops',
  'diary_categories',
  'diary_subcategories',
  'diary_tasks',
  'farms',
  'harvest_batches',
  'iot_alerts',
  'iot_devices',
  'iot_mqtt_sources',
  'iot_readings',
  'iot_rules',
  'mail_outbox',
  'parcels',
  'product_categories',
  'season_templates',
  'seasons',
  'users',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
  'zones',
];

/** Id-keyed tables created without a unique (tenant_id, id), which the new key replaces. */
const WITHOUT_TENANT_ID_KEY = ['access_tokens', 'api_keys', 'iot_readings'];
/**
 * The same on SQLite, but for the readings: stored at sensor rate, where another index on every
 * reading costs ingestion, referenced by nothing, and SQLite is never distributed.
 */
const SQLITE_WITHOUT_TENANT_ID_KEY = WITHOUT_TENANT_ID_KEY.filter((table) => table !== 'iot_readings');

/** Plain (tenant_id, id) indexes that the new primary key (or the SQLite unique) makes redundant. */
const REDUNDANT_INDEXES: Record<string, string> = {
  api_keys: 'api_keys_tenant_idx',
  webhook_endpoints: 'webhook_endpoints_tenant_idx',
};

/**
 * Tables that system workers read by id alone, before or without a tenant (leasing MQTT sources
 * across tenants, claiming and pruning the mail outbox): a plain index on (id) keeps those lookups
 * one index step on PostgreSQL. SQLite finds them by rowid.
 */
const FOUND_BY_ID = ['iot_mqtt_sources', 'mail_outbox'];

const PUBLIC_ID_TABLES = ['webhook_endpoints', 'webhook_deliveries'];

interface ForeignKey {
  name: string;
  table: string;
  definition: string;
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return upSqlite(db);
  const foreignKeys = await dropForeignKeysOnto(db, ID_KEYED);
  for (const table of ID_KEYED) {
    await db.schema.alterTable(table).dropConstraint(`${table}_pkey`).execute();
    if (!WITHOUT_TENANT_ID_KEY.includes(table)) {
      await db.schema.alterTable(table).dropConstraint(`${table}_tenant_id_id_key`).execute();
    }
    const redundant = REDUNDANT_INDEXES[table];
    if (redundant) await db.schema.dropIndex(redundant).execute();
    await db.schema.alterTable(table).addPrimaryKeyConstraint(`${table}_pkey`, ['tenant_id', 'id']).execute();
  }
  for (const table of PUBLIC_ID_TABLES) {
    await db.schema.alterTable(table).dropConstraint(`${table}_public_id_key`).execute();
    await db.schema
      .alterTable(table)
      .addUniqueConstraint(`${table}_tenant_public_id_key`, ['tenant_id', 'public_id'])
      .execute();
  }
  for (const table of FOUND_BY_ID) {
    await db.schema.createIndex(`${table}_id_idx`).on(table).column('id').execute();
  }
  await addForeignKeys(db, foreignKeys);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return downSqlite(db);
  const foreignKeys = await dropForeignKeysOnto(db, ID_KEYED);
  for (const table of FOUND_BY_ID) await db.schema.dropIndex(`${table}_id_idx`).execute();
  for (const table of PUBLIC_ID_TABLES) {
    await db.schema.alterTable(table).dropConstraint(`${table}_tenant_public_id_key`).execute();
    await db.schema.alterTable(table).addUniqueConstraint(`${table}_public_id_key`, ['public_id']).execute();
  }
  for (const table of ID_KEYED) {
    await db.schema.alterTable(table).dropConstraint(`${table}_pkey`).execute();
    await db.schema.alterTable(table).addPrimaryKeyConstraint(`${table}_pkey`, ['id']).execute();
    if (!WITHOUT_TENANT_ID_KEY.includes(table)) {
      await db.schema
        .alterTable(table)
        .addUniqueConstraint(`${table}_tenant_id_id_key`, ['tenant_id', 'id'])
        .execute();
    }
    const redundant = REDUNDANT_INDEXES[table];
    if (redundant) await db.schema.createIndex(redundant).on(table).columns(['tenant_id', 'id']).execute();
  }
  await addForeignKeys(db, foreignKeys);
}

/** Drops the foreign keys that refer to these tables, answering them to be made again. */
async function dropForeignKeysOnto(db: Kysely<any>, tables: string[]): Promise<ForeignKey[]> {
  const { rows } = await sql<ForeignKey>`
    select c.conname as name, t.relname as table, pg_get_constraintdef(c.oid) as definition
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_class r on r.oid = c.confrelid
    join pg_namespace n on n.oid = r.relnamespace
    where c.contype = 'f' and n.nspname = current_schema() and r.relname in (${sql.join(tables)})
    order by t.relname, c.conname`.execute(db);
  for (const fk of rows) await db.schema.alterTable(fk.table).dropConstraint(fk.name).execute();
  return rows;
}

async function addForeignKeys(db: Kysely<any>, foreignKeys: ForeignKey[]): Promise<void> {
  // The definitions are the catalogue's own text of constraints this migration just dropped.
  for (const fk of foreignKeys) {
    await sql`alter table ${sql.table(fk.table)} add constraint ${sql.id(fk.name)} ${sql.raw(fk.definition)}`.execute(
      db,
    );
  }
}

async function upSqlite(db: Kysely<any>): Promise<void> {
  for (const table of SQLITE_WITHOUT_TENANT_ID_KEY) {
    await db.schema
      .createIndex(`${table}_tenant_id_id_key`)
      .unique()
      .on(table)
      .columns(['tenant_id', 'id'])
      .execute();
  }
  await db.schema.dropIndex(REDUNDANT_INDEXES.api_keys as string).execute();
  // A UNIQUE written on a column has an index of SQLite's own that cannot be dropped: the table is
  // made again without it.
  for (const table of PUBLIC_ID_TABLES) {
    await rebuildSqliteTable(db, table, (create) =>
      withTableKey(
        create.replace(/("public_id" varchar\(40\) not null) unique/i, '$1'),
        `constraint "${table}_tenant_public_id_key" unique ("tenant_id", "public_id")`,
      ),
    );
  }
}

async function downSqlite(db: Kysely<any>): Promise<void> {
  for (const table of PUBLIC_ID_TABLES) {
    await rebuildSqliteTable(db, table, (create) =>
      create
        .replace(/("public_id" varchar\(40\) not null)/i, '$1 unique')
        .replace(
          new RegExp(`, constraint "${table}_tenant_public_id_key" unique \\("tenant_id", "public_id"\\)`),
          '',
        ),
    );
  }
  await db.schema.createIndex('api_keys_tenant_idx').on('api_keys').columns(['tenant_id', 'id']).execute();
  for (const table of SQLITE_WITHOUT_TENANT_ID_KEY) {
    await db.schema.dropIndex(`${table}_tenant_id_id_key`).execute();
  }
}

/** `create table x (…)` with one more table constraint at its end. */
function withTableKey(create: string, constraint: string): string {
  const end = create.lastIndexOf(')');
  return `${create.slice(0, end)}, ${constraint}${create.slice(end)}`;
}

/**
 * SQLite's way to change what ALTER TABLE cannot: a new table from the old one's definition as
 * `change` rewrites it, the rows copied, the old table dropped and the new one renamed, its
 * indexes and triggers made again; foreign keys are off meanwhile (dropping the old table would
 * otherwise delete what refers to it) and checked before the commit.
 */
async function rebuildSqliteTable(
  db: Kysely<any>,
  table: string,
  change: (create: string) => string,
): Promise<void> {
  const { rows } = await sql<{ type: string; sql: string }>`
    select type, sql from sqlite_master where tbl_name = ${table} and sql is not null`.execute(db);
  const create = rows.find((r) => r.type === 'table')?.sql;
  if (create === undefined) throw new Error(`no table ${table}`);
  const changed = change(create);
  if (changed === create) throw new Error(`${table}: its definition is not the one expected`);
  const dependents = rows.filter((r) => r.type !== 'table').map((r) => r.sql);
  const rebuilt = `${table}_rebuilt`;
  // AUTOINCREMENT never gives an id again, even a deleted row's: the table's highest id so far is
  // carried over (dropping the table forgets it).
  const { rows: sequence } = await sql<{ seq: number }>`
    select seq from sqlite_sequence where name = ${table}`.execute(db);
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      const definition = changed.replace(/^create table ("?)[a-z_]+("?)/i, `create table "${rebuilt}"`);
      await sql.raw(definition).execute(trx);
      await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(table)}`.execute(trx);
      await sql`drop table ${sql.table(table)}`.execute(trx);
      await sql`alter table ${sql.table(rebuilt)} rename to ${sql.table(table)}`.execute(trx);
      for (const statement of dependents) await sql.raw(statement).execute(trx);
      const highest = sequence[0]?.seq;
      if (highest !== undefined) {
        // Never below the copied rows' ids, which the old sequence counted.
        await sql`delete from sqlite_sequence where name = ${table}`.execute(trx);
        await sql`insert into sqlite_sequence (name, seq) values (${table}, ${highest})`.execute(trx);
      }
      const { rows: broken } = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.length > 0) throw new Error(`${table}: ${broken.length} rows break a foreign key`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
