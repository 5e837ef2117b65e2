// A list of ids as one parameter of a prepared statement, the same text whatever the list's length.
import { sql } from 'kysely';
import { isPostgresDb } from './database.js';
import type { Db } from './types.js';

/**
 * A list of ids as one parameter of a prepared statement, whatever its length: a JSON array on
 * SQLite, an array on PostgreSQL. The statement reads it with idListOf.
 */
export function idListValue(db: Db, ids: readonly number[]): unknown {
  return isPostgresDb(db) ? ids : JSON.stringify(ids);
}

/** `(…)`: the ids of an idListValue parameter, for `<column> in …`. */
export function idListOf(db: Db, param: unknown) {
  return isPostgresDb(db)
    ? sql`(select unnest(${param}::bigint[]))`
    : sql`(select value from json_each(${param}))`;
}
