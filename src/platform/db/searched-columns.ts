// The columns searched by substring, per table: on SQLite the FTS5 tables `<table>_search` (trigram)
// and `<table>_words` index them, on PostgreSQL trigram and word indexes. A module of its own so the
// SQLite driver (sqlite/deferred-search.ts) reads it without importing the record layer.
import type { RecordTable } from './record-tables.js';

/** Columns searched by substring, per table: each has a trigram index on both databases. */
export const SEARCHED_COLUMNS = {
  crops: ['name', 'code', 'sku'],
  seasons: ['name', 'code'],
  season_templates: ['name'],
  diary_tasks: ['name'],
} as const satisfies Partial<Record<RecordTable, readonly string[]>>;
