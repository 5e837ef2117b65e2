// SQLite is served by one process: a second `furrow serve` on the same file would share its write
// lock and its queue without sharing the in-process signals and caches (the token cache, the
// delivery worker's wake-ups), which answered "database is locked" and sent deliveries twice.
// The first serve holds an exclusive lock on a small companion file for as long as it runs; the
// operating system drops it when the process ends, however it ends, so a crash leaves nothing stale.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';

export class ServeLockError extends Error {}

export interface ServeLock {
  release(): void;
}

/** Takes the serve lock of a SQLite database file, or throws ServeLockError naming the file. */
export function takeSqliteServeLock(databaseFile: string): ServeLock {
  if (databaseFile === ':memory:' || databaseFile === '') return { release() {} };
  const path = `${resolve(databaseFile)}.serve-lock`;
  mkdirSync(dirname(path), { recursive: true });
  const lock = new SQLite(path);
  try {
    lock.pragma('busy_timeout = 0');
    lock.pragma('locking_mode = EXCLUSIVE');
    // Held until release or the end of the process: no other connection can read or write it.
    lock.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new ServeLockError(
        `another "furrow serve" is already running on ${resolve(databaseFile)}. SQLite is served by ` +
          'one process; to run several API or worker processes, use PostgreSQL ' +
          '(DATABASE_URL=postgres://..., see "Scaling out on PostgreSQL" in README.md).',
      );
    }
    throw err;
  }
  return {
    release() {
      if (lock.open) lock.close();
    },
  };
}
