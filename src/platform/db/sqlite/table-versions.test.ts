// Table versions on a real SQLite file: a write moves the tables its triggers and cascading foreign
// keys change, again at commit and rollback; a read set taken across a write keeps nothing; a schema
// change voids every version. (SQLite only: PostgreSQL has no read cache.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { TableVersions } from './table-versions.js';

describe('table versions', () => {
  let dir: string;
  let sqlite: SQLite.Database;
  let versions: TableVersions;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-table-versions-'));
    sqlite = new SQLite(join(dir, 'db.sqlite'));
    sqlite.pragma('foreign_keys = ON');
    sqlite.exec(`
      create table farms (id integer primary key, name text);
      create table blocks (id integer primary key, farm_id integer references farms(id) on delete cascade);
      create table notes (id integer primary key, farm_id integer references farms(id));
      create table counts (name text primary key, n integer);
      create table audit (id integer primary key, what text);
      create trigger farms_counted after insert on farms begin
        insert into counts (name, n) values ('farms', 1) on conflict (name) do update set n = n + 1;
      end;
      create trigger counts_audited after update on counts begin
        insert into audit (what) values ('count');
      end;
      create view farm_blocks as select farms.name, blocks.id from farms join blocks on blocks.farm_id = farms.id;
    `);
    versions = new TableVersions(sqlite);
  });
  after(() => {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a statement as the connection does: shown to the versions, then run. */
  const run = (text: string, ...params: unknown[]) => {
    const statement = sqlite.prepare(text);
    versions.observe(text, statement);
    return statement.reader ? statement.all(...params) : statement.run(...params);
  };
  /** The versions of what `text` reads, taken with nothing written meanwhile. */
  const readOf = (text: string) => {
    const reads = versions.beginReading();
    run(text);
    versions.endReading(reads);
    const taken = versions.versionsOf(reads);
    assert.ok(taken, 'kept: nothing was written while it read');
    return taken;
  };

  it('knows the tables a read names, a view through to its tables', () => {
    const taken = readOf('select * from farm_blocks');
    assert.deepEqual(taken.tables.map(([table]) => table).sort(), ['blocks', 'farms']);
    assert.ok(versions.unchanged(taken));
    run('insert into notes (id, farm_id) values (1, null)');
    assert.ok(versions.unchanged(taken), 'a table it did not read');
    run('insert into blocks (id, farm_id) values (1, null)');
    assert.ok(!versions.unchanged(taken), 'a table of the view');
  });

  it('moves the tables that triggers write, transitively', () => {
    const audit = readOf('select count(*) from "audit"');
    const counts = readOf('select * from counts');
    run('insert into farms (id, name) values (10, ?)', 'North');
    assert.ok(!versions.unchanged(counts), "the insert's trigger wrote counts");
    assert.ok(!versions.unchanged(audit), "counts' update trigger writes audit");
  });

  it('moves the children of cascading foreign keys, not of plain ones', () => {
    run('insert into blocks (id, farm_id) values (11, 10)');
    const blocks = readOf('select * from blocks');
    const notes = readOf('select * from notes');
    run('delete from farms where id = 10');
    assert.ok(!versions.unchanged(blocks), 'on delete cascade');
    assert.ok(versions.unchanged(notes), 'no action: a delete that would orphan it fails instead');
  });

  it('moves what a transaction wrote again when it ends, and keeps no read made across a write', () => {
    run('begin immediate');
    run('insert into notes (id, farm_id) values (20, null)');
    const notes = readOf('select * from notes');
    run('rollback');
    assert.ok(!versions.unchanged(notes), 'a read inside the transaction is void after its rollback');

    const reads = versions.beginReading();
    run('select * from farms');
    run('insert into farms (id, name) values (21, ?)', 'South');
    versions.endReading(reads);
    assert.equal(versions.versionsOf(reads), undefined);
  });

  it('voids every version when the schema changes', () => {
    const farms = readOf('select * from farms');
    run('create table extra (id integer primary key)');
    assert.ok(!versions.unchanged(farms));
    const extra = readOf('select * from extra');
    assert.deepEqual(
      extra.tables.map(([table]) => table),
      ['extra'],
      'the new table is known after the schema is read again',
    );
  });
});
