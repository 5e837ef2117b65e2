// The read cache (src/platform/http/read-cache.ts): on SQLite a list or detail asked again is
// answered from memory, and never with anything stale. Every test but the hit counts runs on both
// databases (PostgreSQL has no cache: the same answers, read each time).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../src/platform/clock.js';
import { openDatabase } from '../src/platform/db/database.js';
import { metricsRegistry } from '../src/platform/metrics.js';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from './support/factories.js';
import { type Client, type Graph, seedGraph } from './support/resources.js';

const HOUR = 3_600_000;

async function hits(): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('furrow_read_cache_answers_total')?.get();
  return metric?.values.find((v) => v.labels.outcome === 'hit')?.value ?? 0;
}

/** "YYYY-MM-DD HH:MM:SS" (UTC), as the API takes timestamps. */
const wire = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

forEachDialect('read cache', (database) => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 8));
  let t: TestApp;
  let farm: TestTenant;
  let owner: Client;
  let staff: Client;
  let g: Graph;

  before(async () => {
    t = await startTestApp(database.url, { clock });
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    staff = client(t.url, await loginToken(t.url, farm.code, await makeUser(t.database.db, farm, 'staff')));
    g = await seedGraph(owner);
  });
  after(() => t.close());

  const names = async (c: Client, path: string): Promise<string[]> => {
    const res = await c.get(path);
    assert.equal(res.status, 200, res.text);
    return res.body.map((r: { name: string }) => r.name);
  };

  it('answers a list and a detail read again with every write made since', async () => {
    const list = '/api/crop/crop?pageLimit=5';
    const before = await names(owner, list);
    assert.deepEqual(await names(owner, list), before, 'the same answer twice');
    const made = await owner.post('/api/crop/crop', { json: { name: 'Cached kale', crop_type: g.cropType } });
    assert.equal(made.status, 201, made.text);
    const id = made.body[0].id;
    assert.equal((await names(owner, list))[0], 'Cached kale', 'the new crop heads the list');
    assert.equal((await owner.get(list)).headers.get('x-total-count'), String(before.length + 1));

    const detail = `/api/crop/crop/${id}`;
    const first = await owner.get(detail);
    assert.equal((await owner.get(detail)).headers.get('etag'), first.headers.get('etag'));
    assert.equal((await owner.put(detail, { json: { name: 'Cached kale 2' } })).status, 200);
    const changed = await owner.get(detail);
    assert.equal(changed.body[0].name, 'Cached kale 2');
    assert.notEqual(changed.headers.get('etag'), first.headers.get('etag'));

    assert.equal((await owner.delete(detail)).status, 200);
    assert.equal((await owner.get(detail)).status, 404);
    assert.ok(!(await names(owner, list)).includes('Cached kale 2'));
  });

  it('shows a change to another table that the answer presents (a category, sub-categories)', async () => {
    const path = `/api/diary/production/${g.task}`;
    assert.equal((await owner.put(path, { json: { category_task_id: g.diaryCategory } })).status, 200);
    const list = '/api/diary/production';
    const categoryOf = async () =>
      (await owner.get(list)).body.find((task: { id: number }) => task.id === g.task).category.name;
    assert.equal(await categoryOf(), 'Seed stage');
    assert.equal(await categoryOf(), 'Seed stage');
    const renamed = await owner.put(`/api/diary/categories/${g.diaryCategory}`, { json: { name: 'Sowing' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(await categoryOf(), 'Sowing');

    const subCates = async () => (await owner.get(path)).body[0].sub_cates.map((s: { id: number }) => s.id);
    assert.deepEqual(await subCates(), []);
    assert.equal((await owner.put(path, { json: { sub_cates: [g.subcategory] } })).status, 200);
    assert.deepEqual(await subCates(), [g.subcategory]);
  });

  it('shows what another process wrote to the database', async () => {
    const detail = `/api/crop/crop/${g.crop}`;
    const name = (await owner.get(detail)).body[0].name;
    assert.equal((await owner.get(detail)).body[0].name, name);
    const other = openDatabase(database.url, { maxConnections: 1 });
    try {
      await other.db
        .updateTable('crops')
        .set({ name: 'Written elsewhere' })
        .where('id', '=', g.crop)
        .execute();
    } finally {
      await other.close();
    }
    assert.equal((await owner.get(detail)).body[0].name, 'Written elsewhere');
  });

  it('marks a task overdue once its end passes, with nothing written', async () => {
    const made = await owner.post('/api/diary/production', {
      json: { name: 'Water the seedlings', end: wire(clock.now() + HOUR) },
    });
    assert.equal(made.status, 201, made.text);
    const path = `/api/diary/production/${made.body[0].id}`;
    assert.equal((await owner.get(path)).body[0].overdue, false);
    assert.equal((await owner.get(path)).body[0].overdue, false);
    clock.advance(2 * HOUR);
    assert.equal((await owner.get(path)).body[0].overdue, true);
  });

  it('gives each person, tenant and language its own answer', async () => {
    const path = `/api/crop/crop/${g.crop}`;
    assert.equal((await owner.get(path)).status, 200);
    const neighbour = await makeTenant(t.database.db);
    const stranger = client(t.url, await loginToken(t.url, neighbour.code, neighbour.owner));
    assert.equal((await stranger.get(path)).status, 404, "another tenant never gets this tenant's answer");
    assert.equal((await stranger.get('/api/crop/crop')).headers.get('x-total-count'), '0');

    const template = `/api/template/season/${g.template}`;
    assert.equal((await owner.get(template)).status, 200);
    const asStaff = await staff.get(template);
    assert.equal(asStaff.status, 200);
    const crops = await owner.get('/api/crop/crop');
    const english = await owner.get('/api/crop/crop?search[name]=', { headers: { 'accept-language': 'en' } });
    const vietnamese = await owner.get('/api/crop/crop?search[name]=', {
      headers: { 'accept-language': 'vi' },
    });
    assert.equal(english.status, vietnamese.status);
    assert.equal(crops.status, 200);
    // An error answer is never kept: a bad query answers 422 each time, in the language asked.
    const badEn = await owner.get('/api/crop/crop?page=-1', { headers: { 'accept-language': 'en' } });
    const badVi = await owner.get('/api/crop/crop?page=-1', { headers: { 'accept-language': 'vi' } });
    assert.equal(badEn.status, 422);
    assert.equal(badVi.status, 422);
    assert.notEqual(badEn.text, badVi.text, 'each in its own language');
  });

  it('keeps answers to repeated reads on SQLite only, with the same headers', async () => {
    const path = `/api/crop/season/${g.season}`;
    const first = await owner.get(path);
    const before = await hits();
    const again = await owner.get(path);
    const third = await owner.get(path);
    const gained = (await hits()) - before;
    assert.equal(gained, database.dialect === 'sqlite' ? 2 : 0);
    for (const res of [again, third]) {
      assert.equal(res.status, 200);
      assert.equal(res.text, first.text);
      for (const header of ['etag', 'content-type', 'content-language', 'vary']) {
        assert.equal(res.headers.get(header), first.headers.get(header), header);
      }
      assert.notEqual(res.headers.get('x-request-id'), first.headers.get('x-request-id'));
    }
    // A conditional read still answers 304.
    const tag = first.headers.get('etag')!;
    assert.equal((await owner.get(path, { headers: { 'if-none-match': tag } })).status, 304);
  });

  describe('READ_CACHE=off', () => {
    let off: TestApp;
    before(async () => {
      off = await startTestApp(database.url, { env: { READ_CACHE: 'off' } });
    });
    after(() => off.close());

    it('reads the database every time', async () => {
      const c = client(off.url, await loginToken(off.url, farm.code, farm.owner));
      await c.get('/api/crop/crop');
      const before = await hits();
      assert.equal((await c.get('/api/crop/crop')).status, 200);
      assert.equal((await c.get('/api/crop/crop')).status, 200);
      assert.equal((await hits()) - before, 0);
    });
  });
});
