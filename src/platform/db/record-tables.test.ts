// The one list of record tables against the schema the migrations make: every record table has its
// live-count triggers (an unfiltered list's total reads record_counts), and every searched column
// its trigram index (and on SQLite its word index), on both databases. A new record table without them fails here.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { RECORD_TABLES, SEARCHED_COLUMNS } from './records.js';

forEachDialect('record tables', (database) => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = openDatabase(database.url);
    await migrateToLatest(handle.db);
  });
  after(() => handle.close());

  /** Names of the triggers on a table. */
  async function triggersOf(table: string): Promise<string[]> {
    const { rows } =
      handle.dialect === 'postgres'
        ? await sql<{ name: string }>`
            select tgname as name from pg_trigger
            where tgrelid = ${table}::regclass and not tgisinternal`.execute(handle.db)
        : await sql<{ name: string }>`
            select name from sqlite_master where type = 'trigger' and tbl_name = ${table}`.execute(handle.db);
    return rows.map((r) => r.name);
  }

  it('gives every record table, and only those, its live-count triggers', async () => {
    for (const table of RECORD_TABLES) {
      const names = await triggersOf(table);
      for (const event of ['insert', 'update', 'delete']) {
        assert.ok(
          names.includes(`${table}_count_${event}`),
          `${table} lacks ${table}_count_${event}: ${names}`,
        );
      }
    }
    const { rows } =
      handle.dialect === 'postgres'
        ? await sql<{ name: string }>`
            select tgname as name from pg_trigger where tgname like '%\\_count\\_%' and not tgisinternal`.execute(
            handle.db,
          )
        : await sql<{ name: string }>`
            select name from sqlite_master where type = 'trigger' and name like '%\\_count\\_%' escape '\\'`.execute(
            handle.db,
          );
    const counted = new Set(rows.map((r) => r.name.replace(/_count_(insert|update|delete)$/, '')));
    assert.deepEqual(
      [...counted].sort(),
      [...RECORD_TABLES].sort(),
      'count triggers exist on record tables only',
    );
  });

  it('indexes every searched column by trigrams', async () => {
    for (const [table, columns] of Object.entries(SEARCHED_COLUMNS)) {
      if (handle.dialect === 'postgres') {
        const { rows } = await sql<{ def: string }>`
          select indexdef as def from pg_indexes where tablename = ${table}`.execute(handle.db);
        for (const column of columns) {
          assert.ok(
            rows.some(
              (r) => r.def.includes('gin_trgm_ops') && new RegExp(`\\(${column} gin_trgm_ops`).test(r.def),
            ),
            `${table}.${column} has no trigram index`,
          );
          assert.ok(
            rows.some((r) => r.def.includes(`USING gin (furrow_search_words(${column}))`)),
            `${table}.${column} has no word index`,
          );
        }
      } else {
        const { rows } = await sql<{ name: string }>`
          select name from pragma_table_info(${`${table}_search`})`.execute(handle.db);
        assert.deepEqual(
          rows.map((r) => r.name).sort(),
          [...columns].sort(),
          `${table}_search indexes exactly the searched columns`,
        );
        const words = await sql<{ name: string }>`
          select name from pragma_table_info(${`${table}_words`})`.execute(handle.db);
        assert.deepEqual(
          words.rows.map((r) => r.name).sort(),
          [...columns].sort(),
          `${table}_words indexes exactly the searched columns`,
        );
        const names = await triggersOf(table);
        for (const index of ['search', 'words']) {
          for (const event of ['insert', 'update', 'delete']) {
            assert.ok(
              names.includes(`${table}_${index}_${event}`),
              `${table} lacks ${table}_${index}_${event}`,
            );
          }
        }
      }
    }
  });
});
