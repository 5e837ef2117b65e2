// PostgreSQL: an index of the words of the searched columns, beside 0002's trigram indexes, as 0019
// gave SQLite. A term such as "LÔ 000123" has trigrams in nearly every row ("lô ", "  0"), and its
// rarest ones ("000", "123") are still in a share of the rows that grows with the table; but the word
// that follows its space, "000123", begins a word in only the rows that hold the term. The search
// looks candidates up by that word's beginning (a prefix query on this index) and checks them with
// ILIKE against the whole term (record-tables.ts).
//
// furrow_search_words(text) is the set of words of lower(text) (ILIKE folds case with lower(), so a
// row that holds the term holds the same lowered characters), split at spaces and printable ASCII
// punctuation, the characters after which search-sample.ts takes a word start. The lexemes are made
// directly (array_to_tsvector): no text search parser or dictionary decides what a word is. A word is
// cut into pieces of WORD_PIECE characters when the value is long, so that no lexeme passes
// PostgreSQL's 2,047 bytes (a longer one would make the write fail); a lookup takes a word start's
// first WORD_PIECE characters.
// An expression index: PostgreSQL keeps it for every write, rows already there included.
//
// The function is PARALLEL RESTRICTED: ANALYZE keeps no frequencies for words as rare as the ones
// looked up, so the planner guesses thousands of rows for a word start (half the least frequency it
// keeps), and at a million rows it then chose a parallel bitmap scan: 11 ms (91 ms the first time),
// most of it starting workers, for a lookup of 0.07 ms. Restricted, the scan runs in the backend.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

/** Columns searched by substring, as of this migration (those of 0002). */
const SEARCHED: Record<string, string[]> = {
  crops: ['name', 'code', 'sku'],
  seasons: ['name', 'code'],
  season_templates: ['name'],
  diary_tasks: ['name'],
};

/** Characters per lexeme at most (four bytes each at most in UTF-8: within 2,047 bytes). */
const WORD_PIECE = 200;

/** Printable ASCII other than letters and digits: where words end. */
const WORD_ENDS = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i))
  .filter((c) => !/[0-9A-Za-z]/.test(c))
  .join('');

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  const ends = `'${WORD_ENDS.replace(/'/g, "''")}'`;
  const spaces = `'${' '.repeat(WORD_ENDS.length)}'`;
  // PL/pgSQL for its steps taken only when needed: translate() costs about 5 µs for a short value
  // (most values have no punctuation), and a value of up to 500 characters has no word too long.
  await sql
    .raw(
      `create function furrow_search_words(value text) returns tsvector
       language plpgsql immutable strict parallel restricted as $$
       declare
         words text := lower(value);
       begin
         if words ~ '[!-/:-@[-\`{-~]' then
           words := translate(words, ${ends}, ${spaces});
         end if;
         if length(words) > 500 then
           words := regexp_replace(words, '([^ ]{${WORD_PIECE}})', '\\1 ', 'g');
         end if;
         return array_to_tsvector(array_remove(string_to_array(words, ' '), ''));
       end
       $$`,
    )
    .execute(db);
  for (const [table, columns] of Object.entries(SEARCHED)) {
    for (const column of columns) {
      await sql
        .raw(
          `create index ${table}_${column}_words_idx on ${table} using gin (furrow_search_words(${column}))`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, columns] of Object.entries(SEARCHED)) {
    for (const column of columns) await sql.raw(`drop index ${table}_${column}_words_idx`).execute(db);
  }
  await sql`drop function furrow_search_words(text)`.execute(db);
}
