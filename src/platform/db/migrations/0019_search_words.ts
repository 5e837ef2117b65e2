// SQLite only: an FTS5 index of the words of the searched columns, beside 0005's trigram index. A
// term such as "LÔ 000123" has trigrams in nearly every row ("lô ", " 00"), and its rarest ones are
// still in a share of the rows that grows with the table; but the word that follows its space,
// "000123", begins a word in only the rows that hold the term. The search looks candidates up by
// that word's beginning (a prefix query) and checks them against the whole term (record-tables.ts).
// Same tokenizer rules as the trigram index for case (unicode61 folds as the trigram tokenizer does;
// diacritics kept). Triggers keep it whoever writes, as 0005's do; the rows already there are
// indexed here.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

/** Columns searched by substring, as of this migration (those of 0005). */
const SEARCHED: Record<string, string[]> = {
  crops: ['name', 'code', 'sku'],
  seasons: ['name', 'code'],
  season_templates: ['name'],
  diary_tasks: ['name'],
};

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  for (const [table, columns] of Object.entries(SEARCHED)) {
    const words = `${table}_words`;
    const list = columns.join(', ');
    const values = (row: string) => columns.map((c) => `${row}.${c}`).join(', ');
    await sql
      .raw(
        `create virtual table ${words} using fts5(${list}, content='${table}', content_rowid='id', ` +
          `tokenize='unicode61 remove_diacritics 0')`,
      )
      .execute(db);
    const remove = `insert into ${words} (${words}, rowid, ${list}) values ('delete', old.id, ${values('old')});`;
    const add = `insert into ${words} (rowid, ${list}) values (new.id, ${values('new')});`;
    await sql.raw(`create trigger ${words}_insert after insert on ${table} begin ${add} end`).execute(db);
    await sql.raw(`create trigger ${words}_delete after delete on ${table} begin ${remove} end`).execute(db);
    await sql
      .raw(`create trigger ${words}_update after update of ${list} on ${table} begin ${remove} ${add} end`)
      .execute(db);
    await sql.raw(`insert into ${words} (${words}) values ('rebuild')`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  for (const table of Object.keys(SEARCHED)) {
    for (const event of ['insert', 'delete', 'update']) {
      await sql.raw(`drop trigger ${table}_words_${event}`).execute(db);
    }
    await sql.raw(`drop table ${table}_words`).execute(db);
  }
}
