// Named statements on PostgreSQL: a text run a second time is prepared on the connection and then
// only executed; one-off texts and statements without parameters never are; the number of names
// is bounded; a table changed under a prepared statement costs no request; and
// DATABASE_PREPARED_STATEMENTS=off prepares nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { forEachDialect } from '../../../test/support/databases.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { StatementNames } from './postgres-pool.js';

describe('statement names', () => {
  it('names a text on its second run, never one without parameters, and at most as many as allowed', () => {
    const names = new StatementNames(2, 10);
    assert.equal(names.nameFor('select $1', 1), undefined);
    const first = names.nameFor('select $1', 1);
    assert.match(first ?? '', /^furrow_\d+$/);
    assert.equal(names.nameFor('select $1', 1), first);
    assert.equal(names.nameFor('begin', 0), undefined);
    assert.equal(names.nameFor('begin', 0), undefined);
    names.nameFor('select $1 + 1', 1);
    const second = names.nameFor('select $1 + 1', 1);
    assert.notEqual(second, undefined);
    assert.notEqual(second, first);
    names.nameFor('select $1 + 2', 1);
    assert.equal(names.nameFor('select $1 + 2', 1), undefined, 'past the bound, texts run unnamed');
    assert.equal(names.size, 2);
  });

  it('gives a forgotten text a new name', () => {
    const names = new StatementNames();
    names.nameFor('select $1', 1);
    const before = names.nameFor('select $1', 1);
    names.forget('select $1');
    names.nameFor('select $1', 1);
    const after = names.nameFor('select $1', 1);
    assert.notEqual(after, undefined);
    assert.notEqual(after, before);
  });
});

forEachDialect('prepared statements on a connection', (database) => {
  if (database.dialect !== 'postgres') return;
  let handle: DatabaseHandle;
  // One connection, so the session that prepared is the one asked.
  before(() => {
    handle = openDatabase(database.url, { maxConnections: 1 });
  });
  after(() => handle.close());

  const prepared = async (db = handle.db) =>
    (
      await sql<{
        name: string;
        statement: string;
      }>`select name, statement from pg_prepared_statements`.execute(db)
    ).rows;

  it('prepares a statement on its second run and answers the same rows from it', async () => {
    await sql`create table named_probe (id int primary key, label text)`.execute(handle.db);
    await sql`insert into named_probe values (1, 'one'), (2, 'two')`.execute(handle.db);
    const read = (id: number) =>
      sql<{ label: string }>`select label from named_probe where id = ${id}`.execute(handle.db);
    assert.deepEqual((await read(1)).rows, [{ label: 'one' }]);
    assert.equal((await prepared()).filter((p) => p.statement.includes('named_probe')).length, 0);
    assert.deepEqual((await read(2)).rows, [{ label: 'two' }]);
    assert.deepEqual((await read(1)).rows, [{ label: 'one' }]);
    const probes = (await prepared()).filter((p) => p.statement.includes('named_probe'));
    assert.equal(probes.length, 1);
    assert.match(probes[0]!.name, /^furrow_\d+$/);
  });

  it('runs a statement again when its table changed under it, outside a transaction', async () => {
    const readAll = () =>
      sql<Record<string, unknown>>`select * from named_probe where id = ${1}`.execute(handle.db);
    await readAll();
    await readAll();
    await sql`alter table named_probe add column extra int default 7`.execute(handle.db);
    assert.deepEqual((await readAll()).rows, [{ id: 1, label: 'one', extra: 7 }]);
    assert.deepEqual((await readAll()).rows, [{ id: 1, label: 'one', extra: 7 }]);
  });

  it('prepares nothing when turned off', async () => {
    const off = openDatabase(database.url, { maxConnections: 1, preparedStatements: false });
    try {
      for (let i = 0; i < 3; i++) await sql`select label from named_probe where id = ${i}`.execute(off.db);
      assert.deepEqual(await prepared(off.db), []);
    } finally {
      await off.close();
    }
  });
});
