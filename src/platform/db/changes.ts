// In-process caches of rows (the token cache) learn that what they hold may have changed from the
// code that changes it, not from the SQL it runs: such code calls noteChange with the cache's
// topic, after the write and inside the transaction that makes it (so a read that takes the new
// version runs after the commit: a transaction holds SQLite's one connection). Any form of write
// counts, an upsert included. Only SQLite keeps such caches, where every statement of the process
// runs on one connection; writes of other processes are seen through sqlite/changes.ts. On
// PostgreSQL this does nothing.
import { sqliteConnectionOf } from './sqlite/open.js';
import type { Db } from './types.js';

export type { Changes } from './sqlite/changes.js';

/** Rows of `topic` may have changed: `db` is the handle or the transaction that wrote them. */
export function noteChange(db: Db, topic: string): void {
  sqliteConnectionOf(db)?.changes.note(topic);
}
