// A write transaction run directly on the SQLite connection (SQLite only: on PostgreSQL there is
// none): all or nothing, in its turn behind a Kysely transaction that holds the connection, after
// the turn snapshot of direct reads, and seen by the read cache's table versions.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { directTransaction } from './direct-transaction.js';
import { preparedQuery } from './prepared.js';
import { sqliteConnectionOf } from './sqlite/open.js';

describe('a direct transaction on SQLite', () => {
  let dir: string;
  let handle: DatabaseHandle;
  /** A second connection, as another process would read the file. */
  let other: SQLite.Database;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-direct-'));
    const file = join(dir, 'db.sqlite');
    handle = openDatabase(`sqlite:${file}`);
    await sql`create table notes (id integer primary key, body text not null check (body <> 'bad'))`.execute(
      handle.db,
    );
    other = new SQLite(file, { readonly: true });
  });
  after(async () => {
    other.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const committed = () =>
    (other.prepare('select id from notes order by id').all() as { id: number }[]).map((r) => r.id);
  const insert = 'insert into notes (id, body) values (?, ?)';

  it('commits every statement of its work at once and answers what the work answers', async () => {
    const answer = await directTransaction(handle.db, (s) => {
      assert.equal(s.run(insert, [1, 'one']), 1);
      s.run(insert, [2, 'two']);
      // Inside the transaction, before its commit, another connection sees nothing yet.
      assert.deepEqual(committed(), []);
      return s.all<{ id: number }>('select id from notes order by id', []).map((r) => r.id);
    });
    assert.deepEqual(answer, [1, 2]);
    assert.deepEqual(committed(), [1, 2]);
  });

  it('rolls everything back when its work throws, and rejects with that error', async () => {
    const failed = directTransaction(handle.db, (s) => {
      s.run(insert, [3, 'three']);
      s.run(insert, [4, 'bad']);
    });
    await assert.rejects(failed!, /CHECK constraint failed/);
    assert.deepEqual(committed(), [1, 2]);
    // The connection is free again: the next transaction runs.
    await directTransaction(handle.db, (s) => s.run(insert, [3, 'three']));
    assert.deepEqual(committed(), [1, 2, 3]);
  });

  it('refuses work that is async, and keeps nothing of it', async () => {
    const refused = directTransaction(handle.db, async (s) => {
      s.run(insert, [5, 'before an await']);
    });
    await assert.rejects(refused!, /must not be async/);
    assert.deepEqual(committed(), [1, 2, 3]);
  });

  it('waits for a Kysely transaction that holds the connection, then runs, in the order asked', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = handle.db.transaction().execute(async (trx) => {
      await sql`insert into notes (id, body) values (10, 'held')`.execute(trx);
      order.push('kysely wrote');
      await gate;
      order.push('kysely commits');
    });
    // Let the Kysely transaction begin and write.
    await new Promise((resolve) => setImmediate(resolve));
    const direct = directTransaction(handle.db, (s) => {
      order.push('direct runs');
      s.run(insert, [11, 'direct']);
      return s.all<{ id: number }>('select id from notes where id >= 10 order by id', []).map((r) => r.id);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(order, ['kysely wrote']);
    release();
    assert.deepEqual(await direct, [10, 11]);
    await held;
    assert.deepEqual(order, ['kysely wrote', 'kysely commits', 'direct runs']);
    assert.deepEqual(committed(), [1, 2, 3, 10, 11]);
  });

  it('runs after a direct read of the same turn (its snapshot ends first)', async () => {
    const read = preparedQuery((db) => db.selectFrom('notes' as never).select(sql<number>`count(*)`.as('n')));
    const [before] = await read.all(handle.db, {});
    const written = directTransaction(handle.db, (s) => s.run(insert, [20, 'after a read']));
    assert.equal(await written, 1);
    const [after] = await read.all(handle.db, {});
    assert.equal(Number((after as { n: number }).n), Number((before as { n: number }).n) + 1);
  });

  it('moves the versions of the tables it writes, which the read cache compares', async () => {
    const versions = sqliteConnectionOf(handle.db)!.tableVersions;
    const reader = versions.beginReading();
    committed();
    await sql`select id from notes`.execute(handle.db);
    versions.endReading(reader);
    const taken = versions.versionsOf(reader)!;
    assert.ok(taken.tables.some(([table]) => table === 'notes'));
    assert.equal(versions.unchanged(taken), true);
    await directTransaction(handle.db, (s) => s.run(insert, [30, 'moves']));
    assert.equal(versions.unchanged(taken), false);
  });

  it('is not offered inside a Kysely transaction, which holds the connection', async () => {
    await handle.db.transaction().execute(async (trx) => {
      assert.equal(
        directTransaction(trx, () => 1),
        undefined,
      );
    });
  });
});

forEachDialect('a direct transaction', (database) => {
  it('is offered on SQLite only', async () => {
    const handle = openDatabase(database.url);
    try {
      const direct = directTransaction(handle.db, () => 'ran');
      if (database.dialect === 'sqlite') assert.equal(await direct, 'ran');
      else assert.equal(direct, undefined);
    } finally {
      await handle.close();
    }
  });
});
