// Which part of a search term to look rows up by. A trigram index answers a term through every one of
// its trigrams, and a trigram found in nearly every row (the "lô " of "LÔ 000123" when every crop is
// named "… lô …") costs a pass over nearly every row, however rare the term's other trigrams are.
// So a term with a common trigram is looked up by a rare part of it: a rare word start (the "000123"
// that follows the space) in the word index (migration 0019 on SQLite, 0023 on PostgreSQL), else its
// rarest run of trigrams; rare and common judged on a small sample of the tenant's rows that each
// process keeps for a few seconds. The rows found are checked against the whole term (record-tables.ts), so the
// sample only steers the cost: the rows found are the same whatever it holds.
import { sql } from 'kysely';
import { trigramText } from './fts5-fold.js';
import type { Db } from './types.js';

/** Rows read for a sample (fewer when the tenant has fewer), and for how long a sample serves. */
const SAMPLE_ROWS = 256;
const SAMPLE_MS = 10_000;
/** Samples kept per database handle, the least recently made dropped first. */
const MAX_SAMPLES = 1000;

/**
 * A trigram in more than this share of the rows is common: looking rows up by it costs about a pass
 * over them. A term with no common trigram is looked up whole.
 */
const COMMON_SHARE = 0.25;

/** The searched columns' values of some rows, each column's values read as the index reads them. */
export interface TermSample {
  rows: number;
  /** Per column, the values joined by NUL (which the reading leaves out of every value). */
  texts: Record<string, string>;
}

/** The share of the sampled rows whose columns (any of them) hold a trigram, over-counted a little. */
export function shareOf(sample: TermSample, columns: readonly string[], trigram: string): number {
  if (sample.rows === 0) return 0;
  let found = 0;
  for (const column of columns) {
    const text = sample.texts[column] ?? '';
    for (let at = text.indexOf(trigram); at >= 0; at = text.indexOf(trigram, at + 1)) found += 1;
  }
  return Math.min(1, found / sample.rows);
}

/**
 * The part of a term to look rows up by: its rarest trigram and every neighbour, on either side, up
 * to the nearest common trigram, as the characters of the term they come from. Undefined when the
 * term has no common trigram (or fewer than three characters): it is then looked up whole.
 * `withinWords`: the part stays inside a run of letters and digits (pg_trgm pads each word of a
 * pattern with spaces, and a padded trigram such as "  0" is as common as the words' first letters).
 */
export function rareRun(
  term: string,
  share: (trigram: string) => number,
  withinWords: boolean,
): string | undefined {
  const chars = [...term].filter((c) => c !== '\0');
  const read = chars.map((c) => trigramText(c));
  const shares = chars.slice(2).map((_, i) => share(read.slice(i, i + 3).join('')));
  if (!shares.some((s) => s > COMMON_SHARE)) return undefined;
  const word = chars.map((c) => /[\p{L}\p{N}]/u.test(c));
  // Trigram i may join the run when it is rare and, within words, all three characters are letters.
  const usable = shares.map(
    (s, i) => s <= COMMON_SHARE && (!withinWords || word.slice(i, i + 3).every(Boolean)),
  );
  let rarest = -1;
  shares.forEach((s, i) => {
    if (usable[i] && (rarest < 0 || s < shares[rarest]!)) rarest = i;
  });
  if (rarest < 0) return undefined;
  let first = rarest;
  let last = rarest;
  while (first > 0 && usable[first - 1]) first -= 1;
  while (last + 1 < shares.length && usable[last + 1]) last += 1;
  return chars.slice(first, last + 3).join('');
}

/** The share of sampled rows with a word (in any of the columns) that begins with `start`, read as the index reads it. */
export function wordStartShare(sample: TermSample, columns: readonly string[], start: string): number {
  if (sample.rows === 0) return 0;
  const read = trigramText(start);
  let found = 0;
  for (const column of columns) {
    const text = sample.texts[column] ?? '';
    for (let at = text.indexOf(read); at >= 0; at = text.indexOf(read, at + 1)) {
      if (at === 0 || !/[\p{L}\p{N}]/u.test(text[at - 1]!)) found += 1;
    }
  }
  return Math.min(1, found / sample.rows);
}

/**
 * Characters that the unicode61 tokenizer keeps in words, and so do the characters that fold to the
 * same (their case variants are letters too): ASCII letters and digits, the Latin letters of
 * Latin-1, Latin Extended-A and B and Latin Extended Additional (Vietnamese).
 */
const WORD_CHAR = /^[0-9A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF]$/u;
/**
 * Characters at which unicode61 always ends a word: printable ASCII other than letters and digits
 * (where migration 0023's furrow_search_words ends words too).
 */
const WORD_END = /^[ -/:-@[-`{-~]$/;
/** A word start in at most this share of the rows is looked up by (the word index of 0019 and 0023). */
const RARE_WORD_SHARE = 0.02;

/**
 * A word start to look rows up by, from the word index: the longest run of WORD_CHAR that follows a
 * WORD_END character in the term. A row that holds the term has there a word that begins with that
 * run (the character before is the same ASCII one, which ends words; the run's characters, folded
 * alike, are word characters). The rarest such run in the sample, if it is rare; else undefined.
 */
export function rareWordStart(term: string, share: (start: string) => number): string | undefined {
  const chars = [...term];
  let best: { start: string; share: number } | undefined;
  for (let i = 1; i < chars.length; i++) {
    if (!WORD_END.test(chars[i - 1]!) || !WORD_CHAR.test(chars[i]!)) continue;
    let end = i;
    while (end < chars.length && WORD_CHAR.test(chars[end]!)) end += 1;
    const start = chars.slice(i, end).join('');
    const s = share(start);
    if (best === undefined || s < best.share) best = { start, share: s };
  }
  return best !== undefined && best.share <= RARE_WORD_SHARE ? best.start : undefined;
}

interface Kept {
  madeAt: number;
  sample: Promise<TermSample>;
}

const kept = new WeakMap<Db, Map<string, Kept>>();

/**
 * A sample of the tenant's rows of a table: up to SAMPLE_ROWS rows at random ids between its first
 * and last, made at most once per SAMPLE_MS per process. Only the tenant's rows are read.
 */
export function termSample(
  db: Db,
  tenantId: number,
  table: string,
  columns: readonly string[],
): Promise<TermSample> {
  let samples = kept.get(db);
  if (samples === undefined) {
    samples = new Map();
    kept.set(db, samples);
  }
  const key = `${tenantId} ${table}`;
  const now = performance.now();
  const found = samples.get(key);
  if (found !== undefined && now - found.madeAt < SAMPLE_MS) return found.sample;
  samples.delete(key);
  if (samples.size >= MAX_SAMPLES) samples.delete(samples.keys().next().value as string);
  const sample = readSample(db, tenantId, table, columns);
  samples.set(key, { madeAt: now, sample });
  // A failed read is not kept: the next search reads again.
  sample.catch(() => samples.delete(key));
  return sample;
}

async function readSample(
  db: Db,
  tenantId: number,
  table: string,
  columns: readonly string[],
): Promise<TermSample> {
  const bounds = await sql<{ first: number | null; last: number | null }>`
    select min(id) as first, max(id) as last from ${sql.table(table)} where tenant_id = ${tenantId}`.execute(
    db,
  );
  const first = Number(bounds.rows[0]?.first ?? 0);
  const last = Number(bounds.rows[0]?.last ?? -1);
  const texts: Record<string, string[]> = Object.fromEntries(columns.map((c) => [c, []]));
  if (last < first) return { rows: 0, texts: {} };
  // Twice as many ids as rows wanted: ids between the tenant's first and last may be other tenants'.
  const span = last - first + 1;
  const ids = new Set<number>();
  if (span <= SAMPLE_ROWS * 2) for (let id = first; id <= last; id++) ids.add(id);
  else while (ids.size < SAMPLE_ROWS * 2) ids.add(first + Math.floor(Math.random() * span));
  const { rows } = await sql<Record<string, unknown>>`
    select ${sql.join(columns.map((c) => sql.ref(c)))} from ${sql.table(table)}
    where tenant_id = ${tenantId} and id in (${sql.join([...ids])})
    limit ${SAMPLE_ROWS}`.execute(db);
  for (const row of rows) {
    for (const column of columns) {
      const value = row[column];
      if (value !== null && value !== undefined) texts[column]!.push(trigramText(String(value)));
    }
  }
  return {
    rows: rows.length,
    texts: Object.fromEntries(Object.entries(texts).map(([c, values]) => [c, values.join('\0')])),
  };
}
