// The full-text indexes of a group commit's new rows, written once before it commits (SQLite only),
// on a real migrated SQLite file: what a search finds afterwards is the rows as they stand, whatever
// later members of the group did to them, and FTS5's own integrity check agrees with the tables.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { TestDatabase } from '../../../../test/support/databases.js';
import { makeTenant } from '../../../../test/support/factories.js';
import { type DatabaseHandle, openDatabase } from '../database.js';
import { inTransaction, type Scope } from '../scope.js';
import { SEARCHED_COLUMNS } from '../searched-columns.js';
import { searchIndexesOf } from './deferred-search.js';
import { sqliteConnectionOf } from './open.js';

describe('SQLite full-text indexes of a group commit', () => {
  const database = new TestDatabase('sqlite');
  let handle: DatabaseHandle;
  let scope: Scope;

  before(async () => {
    await database.create();
    handle = openDatabase(database.url);
    const tenant = await makeTenant(handle.db);
    scope = { db: handle.db, tenantId: tenant.id };
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });

  const insertCrop = async (s: Scope, name: string) => {
    const { rows } = await sql<{ id: number }>`
      insert into crops (tenant_id, name, code, created_at, updated_at)
      values (${scope.tenantId}, ${name}, '', 0, 0) returning id`.execute(s.db);
    return rows[0]!.id;
  };
  const rename = (s: Scope, id: number, name: string) =>
    sql`update crops set name = ${name} where id = ${id}`.execute(s.db);
  const remove = (s: Scope, id: number) => sql`delete from crops where id = ${id}`.execute(s.db);

  /** Ids of the crops whose name holds `term`, by the trigram index and by the word index. */
  const found = async (term: string) => {
    const quoted = `"${term.replaceAll('"', '""')}"`;
    const trigram = await sql<{ id: number }>`
      select rowid as id from crops_search where crops_search match ${`name : ${quoted}`} order by rowid`.execute(
      handle.db,
    );
    const words = await sql<{ id: number }>`
      select rowid as id from crops_words where crops_words match ${`name : ${quoted}`} order by rowid`.execute(
      handle.db,
    );
    return { trigram: trigram.rows.map((r) => r.id), words: words.rows.map((r) => r.id) };
  };

  /** Rows the trigram index finds for `term` (an external content table reads rows by rowid from the table itself). */
  const matching = async (s: Scope, term: string) => {
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from crops_search where crops_search match ${`name : "${term}"`}`.execute(s.db);
    return rows[0]!.n;
  };

  it('indexes what a group inserted as it stands at the commit: renamed, deleted or rolled back by later members', async () => {
    // Outside a group commit a row is indexed at once, as before.
    const earlier = await insertCrop(scope, 'Cải bẹ xanh');
    assert.deepEqual(await found('bẹ xanh'), { trigram: [earlier], words: [earlier] });

    let melon = 0;
    let pumpkin = 0;
    let chili = 0;
    let notYetIndexed = -1;
    const outcomes = await Promise.allSettled([
      inTransaction(scope, async (tx) => {
        melon = await insertCrop(tx, 'Dưa hấu Long An');
        notYetIndexed = await matching(tx, 'hấu Long');
      }),
      inTransaction(scope, async (tx) => {
        pumpkin = await insertCrop(tx, 'Bí đỏ');
        await rename(tx, pumpkin, 'Bí đao');
      }),
      inTransaction(scope, (tx) => remove(tx, melon)),
      inTransaction(scope, async (tx) => {
        await insertCrop(tx, 'Cà chua bi');
        throw new Error('this member fails: its row is rolled back');
      }),
      inTransaction(scope, (tx) => rename(tx, earlier, 'Cải bẹ trắng')),
      inTransaction(scope, async (tx) => {
        // Takes the id the rolled-back row had.
        chili = await insertCrop(tx, 'Ớt hiểm');
      }),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.equal(notYetIndexed, 0, 'inside the group the new row waits for the one write before the commit');

    assert.deepEqual(await found('hấu'), { trigram: [], words: [] }, 'inserted, then deleted in the group');
    assert.deepEqual(await found('Bí đao'), { trigram: [pumpkin], words: [pumpkin] });
    assert.deepEqual(await found('Bí đỏ'), { trigram: [], words: [] }, 'its name before the rename');
    assert.deepEqual(await found('Cà chua'), { trigram: [], words: [] }, 'rolled back');
    assert.deepEqual(await found('bẹ trắng'), { trigram: [earlier], words: [earlier] });
    assert.deepEqual(await found('bẹ xanh'), { trigram: [], words: [] });
    assert.deepEqual(await found('Ớt hiểm'), { trigram: [chili], words: [chili] });

    // A later group and a later statement outside one find the index as they expect it.
    await Promise.all([rename(scope, pumpkin, 'Bí ngô'), inTransaction(scope, (tx) => remove(tx, chili))]);
    assert.deepEqual(await found('Bí ngô'), { trigram: [pumpkin], words: [pumpkin] });
    assert.deepEqual(await found('Ớt'), { trigram: [], words: [] });
  });

  it('indexes a row given another id in the group under its new id', async () => {
    let id = 0;
    await inTransaction(scope, async (tx) => {
      id = await insertCrop(tx, 'Khoai lang tím');
      await sql`update crops set id = ${id + 1000}, name = 'Khoai lang mật' where id = ${id}`.execute(tx.db);
    });
    assert.deepEqual(await found('Khoai lang mật'), { trigram: [id + 1000], words: [id + 1000] });
    assert.deepEqual(await found('tím'), { trigram: [], words: [] });
  });

  it('stops noting when a group ends early: a statement waiting for the connection indexes its row', async () => {
    const connection = sqliteConnectionOf(handle.db)!;
    let waiting: Promise<unknown> | undefined;
    const member = inTransaction(scope, async (tx) => {
      await insertCrop(tx, 'Gừng gió');
      // A single statement outside any transaction arrives meanwhile, and waits for the connection.
      waiting = insertCrop(scope, 'Nghệ vàng');
      // The disk is full: SQLite ends the whole transaction itself.
      const pages = Number(connection.sqlite.pragma('page_count', { simple: true }));
      connection.sqlite.pragma(`max_page_count = ${pages + 2}`);
      await sql`update tenants set name = hex(randomblob(40000)) where id = ${scope.tenantId}`.execute(tx.db);
    });
    await assert.rejects(member, /full/i);
    connection.sqlite.pragma('max_page_count = 1073741823');
    const id = await waiting;
    assert.deepEqual(await found('Nghệ vàng'), { trigram: [id], words: [id] });
    assert.deepEqual(await found('Gừng'), { trigram: [], words: [] }, 'rolled back with its group');
    for (const index of searchIndexesOf('crops')) {
      await sql.raw(`insert into ${index} (${index}, rank) values ('integrity-check', 1)`).execute(handle.db);
    }
  });

  it('leaves every full-text index consistent with its table (FTS5 integrity-check)', async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        inTransaction(scope, async (tx) => {
          const id = await insertCrop(tx, `Lô ${String(i).padStart(4, '0')} rau muống`);
          if (i % 3 === 0) await rename(tx, id, `Lô ${i} rau cải`);
          if (i % 5 === 0) await remove(tx, id);
        }),
      ),
    );
    for (const table of Object.keys(SEARCHED_COLUMNS)) {
      for (const index of searchIndexesOf(table)) {
        // rank 1: the index is checked against the rows of its external content table too.
        await sql
          .raw(`insert into ${index} (${index}, rank) values ('integrity-check', 1)`)
          .execute(handle.db);
      }
    }
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from crops_search where crops_search match 'rau cải'`.execute(handle.db);
    const { rows: live } = await sql<{ n: number }>`
      select count(*) as n from crops where name like '%rau cải%'`.execute(handle.db);
    assert.equal(rows[0]!.n, live[0]!.n);
    assert.ok(live[0]!.n > 0);
  });

  it('names every searched table and column as the full-text indexes of the schema do', async () => {
    for (const [table, columns] of Object.entries(SEARCHED_COLUMNS)) {
      for (const index of searchIndexesOf(table)) {
        const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${index})`.execute(
          handle.db,
        );
        assert.deepEqual(
          rows.map((r) => r.name),
          [...columns],
          index,
        );
      }
    }
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and sql like '%using fts5%' order by name`.execute(
      handle.db,
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      Object.keys(SEARCHED_COLUMNS).flatMap(searchIndexesOf).sort(),
    );
  });
});
