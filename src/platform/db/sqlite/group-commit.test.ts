// Group commit on a real SQLite file (SQLite only: PostgreSQL runs each transaction on its own):
// transactions that arrive together share one commit, each keeps its own outcome, and no member
// answers before its rows are committed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from '../database.js';
import { groupStatements } from '../direct-transaction.js';
import { inTransaction, type Scope } from '../scope.js';
import { GROUP_LIMIT } from './group-commit.js';

describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let handle: DatabaseHandle;
  let scope: Scope;
  /** A second connection, as another process would read the file. */
  let other: SQLite.Database;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-group-commit-'));
    file = join(dir, 'db.sqlite');
    handle = openDatabase(`sqlite:${file}`);
    await sql`create table notes (id integer primary key, body text not null check (body <> 'bad'))`.execute(
      handle.db,
    );
    scope = { db: handle.db, tenantId: 1 };
    other = new SQLite(file, { readonly: true });
  });
  after(async () => {
    other.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (s: Scope, id: number, body: string) =>
    sql`insert into notes (id, body) values (${id}, ${body})`.execute(s.db);
  const committed = () =>
    (other.prepare('select id from notes order by id').all() as { id: number }[]).map((r) => r.id);

  it('commits the transactions of one turn once, after the last of them, and answers each then', async () => {
    const seen: number[][] = [];
    const order: string[] = [];
    const results = await Promise.all(
      [1, 2, 3].map((id) =>
        inTransaction(scope, async (tx) => {
          await insert(tx, id, `note ${id}`);
          // Inside the group each member sees the rows of the members before it; outside, nothing
          // is committed yet.
          const { rows } = await sql<{ id: number }>`select id from notes order by id`.execute(tx.db);
          seen.push(rows.map((r) => r.id));
          assert.deepEqual(committed(), [], 'nothing committed while the group runs');
          return id;
        }).then((id) => {
          order.push(`answered ${id}`);
          assert.deepEqual(committed(), [1, 2, 3], 'answered only once every row is committed');
          return id;
        }),
      ),
    );
    assert.deepEqual(results, [1, 2, 3]);
    assert.deepEqual(seen, [[1], [1, 2], [1, 2, 3]]);
    assert.equal(order.length, 3);
  });

  it('rolls back a failing member alone, and answers its error', async () => {
    const outcomes = await Promise.allSettled([
      inTransaction(scope, (tx) => insert(tx, 10, 'kept')),
      inTransaction(scope, async (tx) => {
        await insert(tx, 11, 'written, then undone');
        await insert(tx, 12, 'bad');
      }),
      inTransaction(scope, (tx) => insert(tx, 13, 'kept too')),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /CHECK constraint failed/);
    assert.deepEqual(
      committed().filter((id) => id >= 10),
      [10, 13],
    );
  });

  it("runs a member's statements written out once at once on the connection, inside its savepoint", async () => {
    const direct = (tx: Scope) => {
      const statements = groupStatements(tx.db);
      assert.ok(statements, "a member's transaction has the group's statements");
      return statements;
    };
    const outcomes = await Promise.allSettled([
      inTransaction(scope, async (tx) => {
        direct(tx).run('insert into notes (id, body) values (?, ?)', [30, 'direct']);
        // Kysely's statements of the member, before and after, share its transaction.
        await insert(tx, 31, 'through Kysely');
        return direct(tx).all<{ id: number }>('select id from notes where id >= 30 order by id', []);
      }),
      inTransaction(scope, async (tx) => {
        direct(tx).run('insert into notes (id, body) values (?, ?)', [32, 'undone with its member']);
        direct(tx).run('insert into notes (id, body) values (?, ?)', [33, 'bad']);
      }),
      inTransaction(scope, async (tx) => {
        direct(tx).run('insert into notes (id, body) values (?, ?)', [34, 'kept']);
      }),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual((outcomes[0] as PromiseFulfilledResult<unknown>).value, [{ id: 30 }, { id: 31 }]);
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /CHECK constraint failed/);
    assert.deepEqual(
      committed().filter((id) => id >= 30 && id < 40),
      [30, 31, 34],
    );
  });

  it("offers its statements to no Kysely instance but a running member's transaction", async () => {
    assert.equal(groupStatements(handle.db), undefined, 'the handle waits for its turn');
    const kept = await inTransaction(scope, async (tx) => tx.db);
    assert.equal(groupStatements(kept), undefined, 'a group that has committed');
    await handle.db.transaction().execute(async (trx) => {
      assert.equal(groupStatements(trx), undefined, 'a transaction of its own');
    });
  });

  it('runs a transaction that starts inside another in that one (nested, not grouped)', async () => {
    const id = await inTransaction(scope, (tx) =>
      inTransaction(tx, async (inner) => {
        assert.equal(inner.db, tx.db);
        await insert(inner, 20, 'nested');
        return 20;
      }),
    );
    assert.equal(id, 20);
    assert.ok(committed().includes(20));
  });

  it('takes a member that arrives while a group runs into that group, up to the limit', async () => {
    const many = GROUP_LIMIT + 6;
    // The first member waits on a timer, so the others arrive while the group runs.
    const first = inTransaction(scope, async (tx) => {
      await new Promise((r) => setTimeout(r, 20));
      await insert(tx, 100, 'first');
    }).then(() => committed().filter((id) => id >= 100).length);
    await new Promise((r) => setTimeout(r, 5));
    const later = Array.from({ length: many - 1 }, (_, i) =>
      inTransaction(scope, (tx) => insert(tx, 101 + i, 'later')),
    );
    const [atFirstAnswer] = await Promise.all([first, ...later]);
    assert.equal(atFirstAnswer, GROUP_LIMIT, 'the first commit carried as many members as a group takes');
    assert.equal(committed().filter((id) => id >= 100).length, many, 'the rest in the next group');
  });

  it('fails every member of a commit that fails, and keeps none of their rows', async () => {
    // Furrow's schema has no deferred constraint; one here makes the commit itself fail, as a full
    // disk or an I/O error would.
    await sql`create table parents (id integer primary key)`.execute(handle.db);
    await sql`create table children (id integer primary key, parent_id integer references parents (id) deferrable initially deferred)`.execute(
      handle.db,
    );
    const outcomes = await Promise.allSettled([
      inTransaction(scope, (tx) => insert(tx, 200, 'would be kept')),
      inTransaction(scope, (tx) => sql`insert into children (id, parent_id) values (1, 999)`.execute(tx.db)),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected'],
    );
    for (const outcome of outcomes) {
      assert.match(String((outcome as PromiseRejectedResult).reason), /FOREIGN KEY constraint failed/);
    }
    assert.ok(!committed().includes(200), 'nothing of the group stays');
    // The connection works on: the next group commits.
    await inTransaction(scope, (tx) => insert(tx, 201, 'after'));
    assert.ok(committed().includes(201));
  });
});
