import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { forEachDialect } from '../../../test/support/databases.js';
import { makeTenant, type TestTenant } from '../../../test/support/factories.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { preparedQuery } from './prepared.js';
import { findLive, insertRecord } from './records.js';
import { inTransaction } from './scope.js';
import { directSqliteConnection } from './sqlite/open.js';

forEachDialect('prepared queries and reads outside transactions', (database) => {
  let handle: DatabaseHandle;
  let tenant: TestTenant;
  let other: TestTenant;

  before(async () => {
    handle = openDatabase(database.url, { maxConnections: 4 });
    await migrateToLatest(handle.db);
    tenant = await makeTenant(handle.db);
    other = await makeTenant(handle.db);
  });
  after(() => handle.close());

  const scope = () => ({ db: handle.db, tenantId: tenant.id });

  it('maps named parameters in any order and keeps constants of the query', async () => {
    const query = preparedQuery((db, p: { tenantId: number; minId: number; limit: number }) =>
      db
        .selectFrom('crops')
        .select(['id', 'name'])
        .where('tenant_id', '=', p.tenantId)
        .where('status', '=', 1)
        .where('id', '>=', p.minId)
        .orderBy('id')
        .limit(p.limit),
    );
    const ids: number[] = [];
    for (const [name, status] of [
      ['a', 1],
      ['b', 0],
      ['c', 1],
      ['d', 1],
    ] as const) {
      ids.push(await insertRecord(scope(), 'crops', { name, status }, 1));
    }
    await insertRecord({ db: handle.db, tenantId: other.id }, 'crops', { name: 'theirs', status: 1 }, 1);
    const rows = await query.all(handle.db, { limit: 2, minId: ids[0]!, tenantId: tenant.id });
    assert.deepEqual(
      rows.map((r) => r.name),
      ['a', 'c'],
    );
    assert.deepEqual(
      (await query.all(handle.db, { limit: 10, minId: ids[2]!, tenantId: tenant.id })).map((r) => r.name),
      ['c', 'd'],
    );
    assert.equal(await query.first(handle.db, { limit: 10, minId: 0, tenantId: 999_999 }), undefined);
  });

  it('a read waits for an open transaction and never sees its rows', async () => {
    let inserted = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let insertedSignal!: () => void;
    const afterInsert = new Promise<void>((resolve) => {
      insertedSignal = resolve;
    });
    const transaction = inTransaction(scope(), async (tx) => {
      inserted = await insertRecord(tx, 'crops', { name: 'uncommitted' }, 2);
      insertedSignal();
      await held;
      throw new Error('roll back');
    }).catch((err: Error) => err.message);
    await afterInsert;
    // On SQLite the transaction holds the one connection: no direct read while it is open.
    if (handle.dialect === 'sqlite') assert.equal(directSqliteConnection(handle.db), undefined);
    const read = findLive(scope(), 'crops', inserted);
    setTimeout(release, 20);
    assert.equal(await read, undefined);
    assert.equal(await transaction, 'roll back');
    assert.equal(await findLive(scope(), 'crops', inserted), undefined);
  });

  it('a read inside a transaction sees the rows the transaction wrote', async () => {
    await inTransaction(scope(), async (tx) => {
      const id = await insertRecord(tx, 'crops', { name: 'mine so far' }, 3);
      assert.equal((await findLive(tx, 'crops', id))?.name, 'mine so far');
    });
  });

  it('a write right after a direct read commits, and the next read sees it', async () => {
    const id = await insertRecord(scope(), 'crops', { name: 'before' }, 4);
    // Same turn: a direct read, then a write and a transaction, then a direct read again.
    assert.equal((await findLive(scope(), 'crops', id))?.name, 'before');
    await handle.db.updateTable('crops').set({ name: 'after' }).where('id', '=', id).execute();
    assert.equal((await findLive(scope(), 'crops', id))?.name, 'after');
    await inTransaction(scope(), (tx) =>
      tx.db.updateTable('crops').set({ name: 'in a transaction' }).where('id', '=', id).execute(),
    );
    assert.equal((await findLive(scope(), 'crops', id))?.name, 'in a transaction');
  });

  it("another process's commit is seen by reads from the next turn on", async () => {
    if (handle.dialect !== 'sqlite') return;
    const id = await insertRecord(scope(), 'crops', { name: 'mine' }, 5);
    const elsewhere = openDatabase(database.url, { maxConnections: 1 });
    try {
      assert.equal((await findLive(scope(), 'crops', id))?.name, 'mine');
      // The reads of one turn share a snapshot; a commit elsewhere shows once the turn is over.
      await elsewhere.db.updateTable('crops').set({ name: 'theirs' }).where('id', '=', id).execute();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await findLive(scope(), 'crops', id))?.name, 'theirs');
      // Reading in a later turn does not hold a lock that keeps the other connection from writing.
      await new Promise((resolve) => setImmediate(resolve));
      await elsewhere.db.deleteFrom('crops').where('id', '=', id).execute();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(await findLive(scope(), 'crops', id), undefined);
    } finally {
      await elsewhere.close();
    }
  });

  it('a statement still iterating rows is not handed out to another read', async () => {
    const connection = directSqliteConnection(handle.db);
    if (handle.dialect !== 'sqlite' || connection === undefined) return;
    const compiled = handle.db.selectFrom('crops').select('id').where('tenant_id', '=', tenant.id).compile();
    const all = connection.readRows<{ id: number }>(compiled.sql, compiled.parameters);
    const seen: number[] = [];
    for await (const { rows } of connection.streamQuery<{ id: number }>(compiled)) {
      seen.push(...rows.map((r) => r.id));
      // The same SQL again while the first statement is still iterating.
      assert.deepEqual(connection.readRows(compiled.sql, compiled.parameters), all);
    }
    assert.deepEqual(
      seen,
      all.map((r) => r.id),
    );
    assert.ok(seen.length >= 4);
  });
});
