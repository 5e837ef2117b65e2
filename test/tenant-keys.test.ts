// Every tenant table can be distributed by tenant_id (co-located shards, e.g. Citus): its primary key
// and each unique key or unique index lead with tenant_id, so a key is checked within one tenant's
// shard. Read from the catalogue of the migrated schema, on both databases. Tables without a
// tenant_id column are listed below with the reason they are not per tenant; a new table must be
// one or the other. The few keys that must be unique across tenants are listed with their tables,
// which a distributed layout keeps as reference tables (one copy on every node).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { forEachDialect } from './support/databases.js';

/** Tables with no tenant_id column, and why they are not per tenant. */
const NOT_PER_TENANT: Record<string, string> = {
  tenants: 'the tenants themselves (their id is the distribution key of every other table)',
  login_attempts:
    'login rate limits, per client address across tenants and per tenant code + username, counted ' +
    'before any tenant is resolved',
  furrow_migrations: "the migrator's own record of applied migrations",
  furrow_migrations_lock: "the migrator's lock",
};

/**
 * Tenant tables that would be reference tables (small, replicated to every node), the keys that
 * make them so and why: a request's credential is looked up by its hash before any tenant is known.
 */
const REFERENCE_TABLES: Record<string, { keys: string[]; reason: string }> = {
  access_tokens: {
    keys: ['unique (token_hash)'],
    reason: 'a bearer token is found by its hash to learn whose it is, tenant included',
  },
  api_keys: {
    keys: ['unique (key_hash)'],
    reason: 'an API key is found by its hash to learn whose it is, tenant included',
  },
};

interface Key {
  name: string;
  primary: boolean;
  /** Columns in key order; an expression is written `(expression)`. */
  columns: string[];
}

forEachDialect('tenant keys', (database) => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = openDatabase(database.url);
    await migrateToLatest(handle.db);
  });
  after(() => handle.close());

  async function tables(): Promise<{ table: string; columns: string[] }[]> {
    if (handle.dialect === 'postgres') {
      const { rows } = await sql<{ table: string; columns: string[] }>`
        select c.relname as table, array_agg(a.attname::text order by a.attnum) as columns
        from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        where n.nspname = current_schema() and c.relkind in ('r', 'p')
        group by c.relname order by c.relname`.execute(handle.db);
      return rows;
    }
    const { rows } = await sql<{ name: string; sql: string }>`
      select name, sql from sqlite_master
      where type = 'table' and name not like 'sqlite\\_%' escape '\\'
      order by name`.execute(handle.db);
    // FTS5 search indexes (virtual tables and their shadow tables) are SQLite's own; PostgreSQL
    // searches with trigram indexes on the tables themselves.
    const virtual = rows.filter((r) => /^create virtual table/i.test(r.sql)).map((r) => r.name);
    const result = [];
    for (const { name } of rows) {
      if (virtual.some((v) => name === v || name.startsWith(`${v}_`))) continue;
      const info = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(
        handle.db,
      );
      result.push({ table: name, columns: info.rows.map((r) => r.name) });
    }
    return result;
  }

  async function keysOf(table: string): Promise<Key[]> {
    if (handle.dialect === 'postgres') {
      const { rows } = await sql<{ name: string; primary: boolean; columns: string[] }>`
        select i.relname as name, x.indisprimary as primary,
               array_agg(coalesce(a.attname::text, '(expression)') order by k.ordinality) as columns
        from pg_index x
        join pg_class i on i.oid = x.indexrelid
        cross join lateral unnest(x.indkey) with ordinality as k(attnum, ordinality)
        left join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum and k.attnum > 0
        where x.indrelid = ${table}::regclass and x.indisunique
          and k.ordinality <= x.indnkeyatts
        group by i.relname, x.indisprimary
        order by i.relname`.execute(handle.db);
      return rows;
    }
    const keys: Key[] = [];
    const pk = await sql<{ name: string; pk: number }>`
      select name, pk from pragma_table_info(${table}) where pk > 0 order by pk`.execute(handle.db);
    // A rowid table's INTEGER PRIMARY KEY has no index of its own; other primary keys have one
    // (origin 'pk'), read below.
    const indexes = await sql<{ name: string; unique: number; origin: string }>`
      select name, "unique", origin from pragma_index_list(${table})`.execute(handle.db);
    if (pk.rows.length > 0 && !indexes.rows.some((i) => i.origin === 'pk')) {
      keys.push({ name: 'primary key', primary: true, columns: pk.rows.map((r) => r.name) });
    }
    for (const index of indexes.rows.filter((i) => i.unique === 1)) {
      const cols = await sql<{ name: string | null; seqno: number; key: number }>`
        select name, seqno, "key" from pragma_index_xinfo(${index.name}) where "key" = 1 order by seqno`.execute(
        handle.db,
      );
      keys.push({
        name: index.origin === 'pk' ? 'primary key' : index.name,
        primary: index.origin === 'pk',
        columns: cols.rows.map((c) => c.name ?? '(expression)'),
      });
    }
    return keys;
  }

  it('lists every table without tenant_id as not per tenant, with its reason', async () => {
    const without = (await tables()).filter((t) => !t.columns.includes('tenant_id')).map((t) => t.table);
    assert.deepEqual(without.sort(), Object.keys(NOT_PER_TENANT).sort());
  });

  it('leads the primary key and every unique key of each tenant table with tenant_id', async () => {
    const violations: string[] = [];
    const referenceKeys = new Set<string>();
    const tenantTables = (await tables()).filter((t) => t.columns.includes('tenant_id'));
    assert.ok(tenantTables.length > 20, `only ${tenantTables.length} tenant tables found`);
    for (const { table, columns } of tenantTables) {
      const keys = await keysOf(table);
      const primary = keys.find((k) => k.primary);
      if (!primary) violations.push(`${table}: no primary key`);
      // On SQLite an INTEGER PRIMARY KEY is the rowid, which is what makes the ids: it stays the
      // primary key, and a unique (tenant_id, id) beside it is the key that leads with tenant_id
      // (SQLite is one file, never distributed; the rule keeps its schema the same as PostgreSQL's).
      const rowid = handle.dialect === 'sqlite' && primary?.columns.join() === 'id';
      // The readings are the exception on SQLite: stored at sensor rate, where one more index costs
      // ingestion, and referenced by nothing (migration 0021).
      const needsPair = rowid && columns.includes('id') && table !== 'iot_readings';
      if (needsPair && !keys.some((k) => k.columns.join() === 'tenant_id,id')) {
        violations.push(`${table}: no unique (tenant_id, id) beside the rowid`);
      }
      for (const key of keys) {
        if (key.columns[0] === 'tenant_id' || (rowid && key === primary)) continue;
        const name = `${key.primary ? 'primary key' : 'unique'} (${key.columns.join(', ')})`;
        if (REFERENCE_TABLES[table]?.keys.includes(name)) referenceKeys.add(`${table}: ${name}`);
        else violations.push(`${table}: ${name}`);
      }
    }
    assert.deepEqual(violations, []);
    // Each reference table is one for a key it still has.
    const listed = Object.entries(REFERENCE_TABLES).flatMap(([table, { keys }]) =>
      keys.map((k) => `${table}: ${k}`),
    );
    assert.deepEqual([...referenceKeys].sort(), listed.sort());
  });
});
