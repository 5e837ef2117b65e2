import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../database.js';
import { migrateToLatest } from '../migrate.js';
import { WalCheckpointer } from './checkpointer.js';

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const autoCheckpoint = (sqlite: SQLite.Database) => sqlite.pragma('wal_autocheckpoint', { simple: true });

describe('SQLite WAL checkpoints on a thread of their own', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-checkpoints-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a server database: commits never checkpoint, the thread copies the WAL into the file', async () => {
    const file = join(dir, 'server.db');
    let frames = 0;
    const errors: string[] = [];
    const handle = openDatabase(`sqlite:${file}`, {
      backgroundCheckpoints: { onCheckpoint: (n) => (frames += n), onError: (m) => errors.push(m) },
    });
    try {
      await migrateToLatest(handle.db);
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
        handle.db,
      );
      assert.equal(rows[0]?.wal_autocheckpoint, 0);
      const before = statSync(file).size;
      // Far more than SQLite's own 1,000-page limit, in many commits.
      for (let batch = 0; batch < 40; batch++) {
        await handle.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 50; i++) {
            await sql`insert into login_attempts (bucket, failed, at) values (${`b${batch}-${i}-${'x'.repeat(2000)}`}, 1, ${i})`.execute(
              trx,
            );
          }
        });
      }
      // Only the thread checkpoints: the rows reach the database file itself.
      await until(
        'a checkpoint by the thread',
        () => frames > 0 && statSync(file).size > before + 2_000 * 1_000,
      );
      assert.deepEqual(errors, []);
      const { rows: count } = await sql<{ n: number }>`select count(*) as n from login_attempts`.execute(
        handle.db,
      );
      assert.equal(count[0]?.n, 2_000);
    } finally {
      await handle.close();
    }
    // Closed: everything is in the file, and nothing is lost when it is opened again.
    const again = new SQLite(file, { readonly: true });
    try {
      assert.deepEqual(again.prepare('select count(*) as n from login_attempts').get(), { n: 2_000 });
    } finally {
      again.close();
    }
  });

  it('when the thread stops or cannot start, the connection checkpoints for itself again', async () => {
    const file = join(dir, 'fallback.db');
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    try {
      const stopped = new WalCheckpointer(file, sqlite, {}, 50);
      assert.equal(autoCheckpoint(sqlite), 0);
      await stopped.stop();
      assert.equal(autoCheckpoint(sqlite), 1_000);

      // A thread that cannot open the file ends with an error: the connection takes over again.
      const errors: string[] = [];
      const failed = new WalCheckpointer(join(dir, 'missing', 'nothing.db'), sqlite, {
        onError: (m) => errors.push(m),
      });
      await until('the thread to fail', () => errors.length > 0);
      await failed.stop();
      assert.equal(autoCheckpoint(sqlite), 1_000);
    } finally {
      sqlite.close();
    }
  });
});
