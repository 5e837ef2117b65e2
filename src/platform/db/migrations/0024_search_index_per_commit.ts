// SQLite: the full-text indexes of the rows a group commit inserts are written once for the group
// (sqlite/deferred-search.ts), not row by row. The insert triggers of the searched tables index the
// row at once unless furrow_search_index_now() notes it for the group's end; the update and delete
// triggers leave a noted row alone (it is not in the index yet). The functions are registered on
// every connection Furrow opens; a statement that writes to a searched table on a connection
// without them (the sqlite3 shell, say) fails with "no such function" and changes nothing.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

/** Columns searched by substring, as of this migration (those of 0005 and 0019). */
const SEARCHED: Record<string, string[]> = {
  crops: ['name', 'code', 'sku'],
  seasons: ['name', 'code'],
  season_templates: ['name'],
  diary_tasks: ['name'],
};

async function recreateTriggers(db: Kysely<any>, deferred: boolean): Promise<void> {
  for (const [table, columns] of Object.entries(SEARCHED)) {
    const list = columns.join(', ');
    const values = (row: string) => columns.map((c) => `${row}.${c}`).join(', ');
    const insertWhen = deferred ? ` when furrow_search_index_now('${table}', new.id)` : '';
    const deleteWhen = deferred ? ` when not furrow_search_noted('${table}', old.id)` : '';
    // A noted row given another id is noted under that id too.
    const updateWhen = deferred ? ` when not furrow_search_noted('${table}', old.id, new.id)` : '';
    for (const index of [`${table}_search`, `${table}_words`]) {
      const remove = `insert into ${index} (${index}, rowid, ${list}) values ('delete', old.id, ${values('old')});`;
      const add = `insert into ${index} (rowid, ${list}) values (new.id, ${values('new')});`;
      for (const event of ['insert', 'delete', 'update']) {
        await sql.raw(`drop trigger ${index}_${event}`).execute(db);
      }
      await sql
        .raw(`create trigger ${index}_insert after insert on ${table}${insertWhen} begin ${add} end`)
        .execute(db);
      await sql
        .raw(`create trigger ${index}_delete after delete on ${table}${deleteWhen} begin ${remove} end`)
        .execute(db);
      await sql
        .raw(
          `create trigger ${index}_update after update of ${list} on ${table}${updateWhen} begin ${remove} ${add} end`,
        )
        .execute(db);
    }
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await recreateTriggers(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await recreateTriggers(db, false);
}
