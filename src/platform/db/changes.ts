// In-process caches of rows (the token cache) learn that what they hold may have changed from the
// code that changes it, not from the SQL it runs: such code calls noteChange with the cache's
// topic, after the write and inside the transaction that makes it. Any form of write counts, an
// upsert included.
// - SQLite: the transaction holds the process's one connection, so a read that takes the new
//   version runs after the commit; writes of other processes are seen through sqlite/changes.ts.
// - PostgreSQL: the versions of this process move at once, and a NOTIFY in the same transaction
//   moves every process's versions at its commit (postgres-changes.ts), this one's again.
import { sql } from 'kysely';
import { isPostgresDb } from './database.js';
import { CHANGES_CHANNEL, noteLocalPostgresChange } from './postgres-changes.js';
import { sqliteConnectionOf } from './sqlite/open.js';
import type { Db } from './types.js';

/** When rows of a topic may have changed; undefined while that cannot be known (nothing may be cached). */
export interface Changes {
  version(topic: string): number | undefined;
}

/** Rows of `topic` may have changed: `db` is the handle or the transaction that wrote them. */
export async function noteChange(db: Db, topic: string): Promise<void> {
  if (isPostgresDb(db)) {
    noteLocalPostgresChange(topic);
    await sql`select pg_notify(${CHANGES_CHANNEL}, ${topic})`.execute(db);
    return;
  }
  sqliteConnectionOf(db)?.changes.note(topic);
}
