// Lists that stay fast as a tenant grows: totals from counts kept by triggers, filtered totals
// counted up to a limit, substring search on its index (FTS5 trigram on SQLite, pg_trgm on
// PostgreSQL) and the date-range filter bounded by the widest task span.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openDatabase } from '../src/platform/db/database.js';
import { furrowMigrator } from '../src/platform/db/migrate.js';
import { COUNT_LIMIT } from '../src/platform/db/records.js';
import type { Database } from '../src/platform/db/types.js';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, type TestTenant } from './support/factories.js';
import type { Client } from './support/resources.js';

const total = (res: { headers: Headers }) => res.headers.get('x-total-count');
const rels = (res: { headers: Headers }) =>
  [...(res.headers.get('link') ?? '').matchAll(/rel="(\w+)"/g)].map((m) => m[1]);
const names = (res: { body: { name: string }[] }) => res.body.map((r) => r.name).sort();

/** Crops written straight into the table, as another process or an operator's SQL would. */
async function insertCrops(db: Kysely<Database>, tenantId: number, names: string[]): Promise<void> {
  for (let i = 0; i < names.length; i += 500) {
    await db
      .insertInto('crops')
      .values(
        // The other columns keep their defaults, as a plain SQL insert would leave them.
        names
          .slice(i, i + 500)
          .map((name) => ({ tenant_id: tenantId, name, created_at: 1, updated_at: 1 })) as never,
      )
      .execute();
  }
}

forEachDialect('lists as a tenant grows', (database) => {
  let t: TestApp;
  let mine: TestTenant;
  let theirs: TestTenant;
  let c: Client;
  let other: Client;

  before(async () => {
    t = await startTestApp(database.url);
    mine = await makeTenant(t.database.db);
    theirs = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, mine.code, mine.owner));
    other = client(t.url, await loginToken(t.url, theirs.code, theirs.owner));
  });
  after(() => t.close());

  it('gives the exact total of an unfiltered list, whoever wrote the rows', async () => {
    const created: number[] = [];
    for (const name of ['one', 'two', 'three']) {
      created.push((await c.post('/api/crop/crop', { json: { name } })).body[0].id);
    }
    await other.post('/api/crop/crop', { json: { name: 'not mine' } });
    assert.equal(total(await c.get('/api/crop/crop?pageLimit=1')), '3');
    await c.delete(`/api/crop/crop/${created[0]}`);
    assert.equal(total(await c.get('/api/crop/crop?pageLimit=1')), '2');

    // Rows written by someone else: plain inserts, a soft delete and a hard delete in SQL.
    await insertCrops(t.database.db, mine.id, ['by sql 1', 'by sql 2']);
    assert.equal(total(await c.get('/api/crop/crop?pageLimit=1')), '4');
    await t.database.db.updateTable('crops').set({ deleted_at: 2 }).where('name', '=', 'by sql 1').execute();
    assert.equal(total(await c.get('/api/crop/crop?pageLimit=1')), '3');
    await t.database.db.deleteFrom('crops').where('name', '=', 'by sql 2').execute();
    await t.database.db.deleteFrom('crops').where('id', '=', created[0]!).execute();
    const list = await c.get('/api/crop/crop?pageLimit=1');
    assert.equal(total(list), '2');
    assert.deepEqual(rels(list), ['first', 'next', 'last']);
    assert.equal(total(await other.get('/api/crop/crop')), '1');

    // Past the last page: no rows, no next, the total and the last page still known.
    const past = await c.get('/api/crop/crop?page=7&pageLimit=1');
    assert.deepEqual(past.body, []);
    assert.equal(total(past), '2');
    assert.deepEqual(rels(past), ['first', 'prev', 'last']);
  });

  it(`counts a filtered list up to ${COUNT_LIMIT}; past that it leaves out the total and the last link`, async () => {
    await insertCrops(
      t.database.db,
      mine.id,
      Array.from({ length: COUNT_LIMIT + 1 }, (_, i) => `bulk ${i}`),
    );
    await insertCrops(t.database.db, theirs.id, ['bulk of theirs']);
    const many = await c.get('/api/crop/crop?search[name]=bulk&pageLimit=5');
    assert.equal(many.status, 200);
    assert.equal(many.body.length, 5);
    assert.equal(total(many), null);
    assert.deepEqual(rels(many), ['first', 'next']);
    const deep = await c.get(`/api/crop/crop?search[name]=bulk&pageLimit=5&page=${COUNT_LIMIT / 5}`);
    // The last page knows the total from its own rows.
    assert.equal(deep.body.length, 1);
    assert.equal(total(deep), String(COUNT_LIMIT + 1));
    assert.deepEqual(rels(deep), ['first', 'prev', 'last']);
    const between = await c.get(`/api/crop/crop?search[name]=bulk&pageLimit=5&page=${COUNT_LIMIT / 10}`);
    assert.equal(total(between), null);
    assert.deepEqual(rels(between), ['first', 'prev', 'next']);

    // One fewer match is counted exactly, on a page that is not the last one.
    await t.database.db.updateTable('crops').set({ deleted_at: 3 }).where('name', '=', 'bulk 0').execute();
    const counted = await c.get('/api/crop/crop?search[name]=bulk&pageLimit=5&page=1');
    assert.equal(total(counted), String(COUNT_LIMIT));
    assert.deepEqual(rels(counted), ['first', 'prev', 'next', 'last']);
    // Unfiltered, the total is exact however large.
    assert.ok(Number(total(await c.get('/api/crop/crop'))) > COUNT_LIMIT);
  });

  it('searches substrings without case, beyond ASCII too, and takes % _ and quotes literally', async () => {
    const make = async (json: Record<string, unknown>) =>
      (await c.post('/api/crop/crop', { json })).body[0].id;
    const dalat = await make({ name: 'Cà chua Đà Lạt', code: 'DL-01', sku: 'sku-dalat' });
    await make({ name: '50% off_sale "best"', code: 'PCT' });
    await make({ name: 'Plain 50 offXsale', code: 'PLN' });
    await make({ name: 'Xy', code: 'XY' });
    await other.post('/api/crop/crop', { json: { name: 'Cà chua Đà Lạt (theirs)' } });
    const search = (query: string) => c.get(`/api/crop/crop?${query}`);

    assert.deepEqual(names(await search('search[name]=ĐÀ LẠT')), ['Cà chua Đà Lạt']);
    assert.deepEqual(names(await search('search[name]=chua đà')), ['Cà chua Đà Lạt']);
    assert.deepEqual(names(await search('search[name]=0%25 off_')), ['50% off_sale "best"']);
    assert.deepEqual(names(await search('search[name]="best"')), ['50% off_sale "best"']);
    assert.deepEqual(names(await search('search[name]=xy')), ['Xy']);
    assert.deepEqual(names(await search('search[code]=dl-0')), ['Cà chua Đà Lạt']);
    assert.deepEqual(names(await search('search[sku]=DALAT')), ['Cà chua Đà Lạt']);
    assert.deepEqual(names(await search('search[]=PLN')), ['Plain 50 offXsale']);
    assert.deepEqual(names(await search('search[]=sku-dal')), ['Cà chua Đà Lạt']);
    assert.equal(total(await search('search[name]=Lạt')), '1');

    // A renamed crop is found by its new name only; a deleted one not at all.
    await c.put(`/api/crop/crop/${dalat}`, { json: { name: 'Dâu tây Mộc Châu' } });
    assert.deepEqual(names(await search('search[name]=đà lạt')), []);
    assert.deepEqual(names(await search('search[name]=MỘC CHÂU')), ['Dâu tây Mộc Châu']);
    await c.delete(`/api/crop/crop/${dalat}`);
    assert.deepEqual(names(await search('search[name]=mộc châu')), []);
  });

  it('finds by part of a term whose trigrams are common exactly what the whole term finds', async () => {
    // A tenant of its own: its first search samples its rows, which must already be there. Every
    // name has "lô 0…" (common trigrams); each number is in one name only (a rare word start).
    const tenant = await makeTenant(t.database.db);
    const me = client(t.url, await loginToken(t.url, tenant.code, tenant.owner));
    const numbered = (i: number) => `Rau cải ${i % 7} lô ${String(i).padStart(6, '0')}`;
    await insertCrops(
      t.database.db,
      tenant.id,
      Array.from({ length: 300 }, (_, i) => numbered(i)),
    );
    const make = async (name: string) => (await me.post('/api/crop/crop', { json: { name } })).body[0].id;
    await make('Cà rốt lô 0000071');
    await make('xlô 000007 b');
    await make('Rau cải lô  000007');
    await make('Rau cải lo 000007');
    await make('000007 lô');
    await make('Giống 50% off_lô 000007');
    await insertCrops(t.database.db, tenant.id, ['RAU CẢI LÔ 000007 (SQL)']);
    await other.post('/api/crop/crop', { json: { name: 'lô 000007 of theirs' } });
    const found = async (term: string) => {
      const res = await me.get(`/api/crop/crop?search[name]=${encodeURIComponent(term)}&pageLimit=100`);
      assert.equal(res.status, 200, res.text);
      return names(res);
    };

    const lo7 = [
      'Cà rốt lô 0000071',
      'Giống 50% off_lô 000007',
      'RAU CẢI LÔ 000007 (SQL)',
      numbered(7),
      'xlô 000007 b',
    ].sort();
    assert.deepEqual(await found('LÔ 000007'), lo7);
    assert.deepEqual(await found('lô 000007'), lo7);
    // A word start, then no word start at all (the term is inside one word), then %, _ and accents.
    assert.deepEqual(await found('cải 0 lô 000007'), [numbered(7)]);
    assert.deepEqual(await found('0000071'), ['Cà rốt lô 0000071']);
    assert.deepEqual(await found('0% off_lô 0000'), ['Giống 50% off_lô 000007']);
    assert.deepEqual(await found('LO 000007'), ['Rau cải lo 000007']);
    assert.deepEqual(await found('lô  000007'), ['Rau cải lô  000007']);
    // A rare run of trigrams ("6 l") when no word start is rare ("0002" begins a third of the words).
    const sixes = Array.from({ length: 100 }, (_, i) => 200 + i).filter((i) => i % 7 === 6);
    assert.deepEqual(await found('6 LÔ 0002'), sixes.map(numbered).sort());

    // A word longer than a lexeme of PostgreSQL's word index may hold (2,047 bytes): written, and
    // found by a start longer than the index keeps of it (200 characters). Only SQL writes a name that
    // long; a term has 255 characters at most.
    const long = `Rau cải lô ${'ấ'.repeat(700)} dài`;
    await insertCrops(t.database.db, tenant.id, [long]);
    assert.deepEqual(await found(`LÔ ${'Ấ'.repeat(240)}`), [long]);
    assert.deepEqual(await found(`LÔ ${'Ấ'.repeat(240)}C`), []);
    assert.deepEqual(await found(`${'Ấ'.repeat(240)} DÀI`), [long]);

    // Renamed, soft-deleted, restored and hard-deleted rows, through the API and in SQL.
    const id = await make('Dưa leo lô 000999');
    assert.deepEqual(await found('lô 000999'), ['Dưa leo lô 000999']);
    await me.put(`/api/crop/crop/${id}`, { json: { name: 'Dưa leo lô 000998' } });
    assert.deepEqual(await found('lô 000999'), []);
    assert.deepEqual(await found('lô 000998'), ['Dưa leo lô 000998']);
    await me.delete(`/api/crop/crop/${id}`);
    assert.deepEqual(await found('lô 000998'), []);
    await t.database.db.updateTable('crops').set({ deleted_at: null }).where('id', '=', id).execute();
    assert.deepEqual(await found('lô 000998'), ['Dưa leo lô 000998']);
    await t.database.db
      .updateTable('crops')
      .set({ name: 'Dưa leo lô 000997' })
      .where('id', '=', id)
      .execute();
    assert.deepEqual(await found('lô 000998'), []);
    assert.deepEqual(await found('lô 000997'), ['Dưa leo lô 000997']);
    await t.database.db.deleteFrom('crops').where('id', '=', id).execute();
    assert.deepEqual(await found('lô 000997'), []);
  });

  it('searches tasks, seasons and templates on their indexes too', async () => {
    const g = {
      crop: (await c.post('/api/crop/crop', { json: { name: 'Dragon fruit' } })).body[0].id,
    };
    await c.post('/api/diary/production', {
      json: { name: 'Tưới nước luống A', start: '2026-03-01 06:00:00' },
    });
    await c.post('/api/crop/season', {
      json: { name: 'Vụ Đông Xuân', crop_id: g.crop, start_date: '2026-01-01', end_date: '2026-04-30' },
    });
    await c.post('/api/template/season', { json: { name: 'Mẫu Thanh Long', crop_id: g.crop } });
    assert.deepEqual(names(await c.get('/api/diary/production?strSearch[]=TƯỚI NƯỚC')), [
      'Tưới nước luống A',
    ]);
    assert.deepEqual(names(await c.get('/api/crop/season?search[name]=đông xuân')), ['Vụ Đông Xuân']);
    assert.deepEqual(names(await c.get('/api/template/season?search[name]=thanh long')), ['Mẫu Thanh Long']);
  });

  it('finds a long task that started well before the date range', async () => {
    const task = async (name: string, start: string, end?: string) =>
      (await c.post('/api/diary/production', { json: { name, start, ...(end ? { end } : {}) } })).body[0].id;
    await task('before', '2025-06-01 08:00:00', '2025-06-01 10:00:00');
    await task('long', '2025-05-01 08:00:00', '2025-06-20 17:00:00');
    await task('inside', '2025-06-15 08:00:00');
    // Starts earlier than the long task; once widened, it is the widest.
    const widened = await task('short, widened later', '2025-04-01 08:00:00', '2025-04-01 09:00:00');
    await task('after', '2025-07-01 08:00:00');
    const range = '/api/diary/production?from_date=2025-06-10&to_date=2025-06-30&pageLimit=100';
    assert.deepEqual(names(await c.get(range)), ['inside', 'long']);
    await c.put(`/api/diary/production/${widened}`, { json: { end: '2025-06-12 09:00:00' } });
    assert.deepEqual(names(await c.get(range)), ['inside', 'long', 'short, widened later']);
    assert.equal(total(await c.get(range)), '3');
  });
});

forEachDialect('migration 0005 on existing data', { migrated: false }, (database) => {
  it('counts, spans and search indexes cover the rows written before it', async () => {
    const handle = openDatabase(database.url, { maxConnections: 2 });
    try {
      const migrator = furrowMigrator(handle.db);
      assert.equal((await migrator.migrateTo('0004_iot_harvest')).error, undefined);
      const tenant = await makeTenant(handle.db);
      await insertCrops(handle.db, tenant.id, ['Older crop Đà Lạt', 'Another older crop']);
      await handle.db
        .insertInto('diary_tasks')
        .values({
          tenant_id: tenant.id,
          name: 'Older task',
          start_at: 0,
          end_at: 86_400_000,
          user_id: tenant.owner.id,
          created_at: 1,
          updated_at: 1,
        } as never)
        .execute();
      assert.equal((await migrator.migrateToLatest()).error, undefined);

      const counts = await handle.db
        .selectFrom('record_counts')
        .select(['table_name', 'live_count'])
        .where('tenant_id', '=', tenant.id)
        .orderBy('table_name')
        .execute();
      assert.deepEqual(
        counts.map((r) => [r.table_name, Number(r.live_count)]),
        [
          ['crops', 2],
          ['diary_tasks', 1],
          ['users', 1],
        ],
      );
      const span = await handle.db.selectFrom('task_span_limits').select('widest_span').executeTakeFirst();
      assert.equal(Number(span?.widest_span), 86_400_000);
      if (handle.dialect === 'sqlite') {
        const found = await sql<{ rowid: number }>`
          select rowid from crops_search where crops_search match ${'{name} : "ĐÀ LẠT"'}`.execute(handle.db);
        assert.equal(found.rows.length, 1);
      }
      assert.equal((await migrator.migrateDown()).error, undefined);
      assert.equal((await migrator.migrateToLatest()).error, undefined);
    } finally {
      await handle.close();
    }
  });
});

forEachDialect('migration 0023 on existing data', { migrated: false }, (database) => {
  it('indexes the words of the rows written before it on PostgreSQL, and is undone and made again', async () => {
    const handle = openDatabase(database.url, { maxConnections: 2 });
    try {
      const migrator = furrowMigrator(handle.db);
      assert.equal((await migrator.migrateTo('0022_readings_without_tenant_fk')).error, undefined);
      const tenant = await makeTenant(handle.db);
      await insertCrops(handle.db, tenant.id, ['Older crop LÔ 000123', 'Another older crop', 'x/00012,y']);
      assert.equal((await migrator.migrateToLatest()).error, undefined);
      // The index's own lookup, forced: no sequential scan may answer it instead.
      const wordsOf = async (start: string) =>
        handle.db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          const { rows } = await sql<{ name: string }>`
            select name from crops
            where furrow_search_words(name) @@ (quote_literal(lower(cast(${start} as text))) || ':*')::tsquery
            order by name`.execute(trx);
          return rows.map((r) => r.name);
        });
      if (handle.dialect === 'postgres') {
        assert.deepEqual(await wordsOf('00012'), ['Older crop LÔ 000123', 'x/00012,y']);
        assert.deepEqual(await wordsOf('LÔ'), ['Older crop LÔ 000123']);
        assert.deepEqual(await wordsOf('y'), ['x/00012,y']);
        const plan = await handle.db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          const { rows } = await sql<{ 'QUERY PLAN': string }>`
            explain select name from crops where furrow_search_words(name) @@ '000123:*'::tsquery`.execute(
            trx,
          );
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        });
        assert.match(plan, /crops_name_words_idx/);
        // No parallel plan for a lookup of a few rows (see the migration).
        const { rows } = await sql<{ parallel: string }>`
          select proparallel as parallel from pg_proc where proname = 'furrow_search_words'`.execute(
          handle.db,
        );
        assert.deepEqual(rows, [{ parallel: 'r' }]);
      }
      assert.equal((await migrator.migrateTo('0022_readings_without_tenant_fk')).error, undefined);
      assert.equal((await migrator.migrateToLatest()).error, undefined);
      if (handle.dialect === 'postgres')
        assert.deepEqual(await wordsOf('older'), ['Another older crop', 'Older crop LÔ 000123']);
    } finally {
      await handle.close();
    }
  });
});

forEachDialect('migration 0019 on existing data', { migrated: false }, (database) => {
  it('indexes the words of the rows written before it, and is undone and made again', async () => {
    const handle = openDatabase(database.url, { maxConnections: 2 });
    try {
      const migrator = furrowMigrator(handle.db);
      assert.equal((await migrator.migrateTo('0018_webhook_delivery_hours')).error, undefined);
      const tenant = await makeTenant(handle.db);
      await insertCrops(handle.db, tenant.id, ['Older crop lô 000123', 'Another older crop']);
      assert.equal((await migrator.migrateToLatest()).error, undefined);
      const wordsOf = async () =>
        (
          await sql<{ rowid: number }>`
            select rowid from crops_words where crops_words match ${'{name} : "LÔ" AND {name} : "00012" *'}`.execute(
            handle.db,
          )
        ).rows.length;
      if (handle.dialect === 'sqlite') assert.equal(await wordsOf(), 1);
      assert.equal((await migrator.migrateTo('0018_webhook_delivery_hours')).error, undefined);
      assert.equal((await migrator.migrateToLatest()).error, undefined);
      if (handle.dialect === 'sqlite') assert.equal(await wordsOf(), 1);
    } finally {
      await handle.close();
    }
  });
});
