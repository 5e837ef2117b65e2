// Input edges every resource shares: values nested too deeply, non-string image entries and nulls
// for fields that may not be null are 422s naming the field, and nothing is written.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { MAX_JSON_BODY_DEPTH } from '../src/platform/http/lenient-input.js';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant } from './support/factories.js';
import { assertErrorShape, type Client, type Graph, invalidFields, seedGraph } from './support/resources.js';

/** `[[[…"x"…]]]` nested `depth` levels, built as text (JSON.stringify would recurse). */
const nested = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

forEachDialect('resource input edges', (database) => {
  let t: TestApp;
  let c: Client;
  let g: Graph;

  before(async () => {
    t = await startTestApp(database.url);
    const farm = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    g = await seedGraph(c);
  });
  after(() => t.close());

  const putRaw = (path: string, body: string) =>
    c.put(path, { raw: body, headers: { 'content-type': 'application/json' } });

  it('refuses season arrays nested too deeply, sent as JSON or as a JSON string', async () => {
    const before = (await c.get(`/api/crop/season/${g.season}`)).body[0];
    for (const field of ['manufacturers', 'vendors', 'attach_files']) {
      const asJson = await putRaw(`/api/crop/season/${g.season}`, `{"${field}":${nested(40)}}`);
      assert.equal(asJson.status, 422, asJson.text);
      assert.deepEqual(invalidFields(asJson.body), [field]);
      // Past the body's own limit the JSON is not even read.
      const past = await putRaw(`/api/crop/season/${g.season}`, `{"${field}":${nested(20_000)}}`);
      assertErrorShape(past.body, 400, 'json_too_deep');
      // Within the 100 KB a JSON string may hold.
      const text = JSON.stringify(nested(45_000));
      const asString = await putRaw(`/api/crop/season/${g.season}`, `{"${field}":${text}}`);
      assert.equal(asString.status, 422, asString.text);
      assert.deepEqual(invalidFields(asString.body), [field]);
      const created = await c.post('/api/crop/season', {
        raw: `{"name":"Deep","crop_id":${g.crop},"${field}":${text}}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(created.status, 422, created.text);
      assert.deepEqual(invalidFields(created.body), [field]);
    }
    // Sixteen levels are fine.
    const ok = await c.put(`/api/crop/season/${g.season}`, {
      json: { vendors: JSON.stringify(JSON.parse(nested(15))) },
    });
    assert.equal(ok.status, 200, ok.text);
    const after = (await c.get(`/api/crop/season/${g.season}`)).body[0];
    assert.equal(after.name, before.name);
  });

  it('refuses any body field nested too deeply, naming it', async () => {
    const res = await putRaw(`/api/crop/crop/${g.crop}`, `{"name":${nested(MAX_JSON_BODY_DEPTH - 1)}}`);
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(invalidFields(res.body), ['name']);
  });

  it('answers 400 json_too_deep for a body nested past its limit, before reading it', async () => {
    for (const body of [
      `{"name":${nested(MAX_JSON_BODY_DEPTH)}}`,
      `{"name":${nested(50_000)}}`,
      nested(100_000),
      `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
    ]) {
      const res = await putRaw(`/api/crop/crop/${g.crop}`, body);
      assert.match(assertErrorShape(res.body, 400, 'json_too_deep').message, /deeper than 64 levels/);
    }
    // Brackets inside strings are text, not nesting.
    const text = await c.post('/api/crop/crop', { json: { name: `${'['.repeat(200)}\\"{` } });
    assert.equal(text.status, 201, text.text);
  });

  it('refuses images whose elements are not all strings', async () => {
    const before = (await c.get(`/api/crop/crop/${g.crop}`)).body[0];
    for (const images of ['[1,{"a":2},null]', '["/a.jpg",2]', '[["/a.jpg"]]']) {
      const res = await c.put(`/api/crop/crop/${g.crop}`, { json: { images } });
      assert.equal(res.status, 422, `${images}: ${res.text}`);
      assert.deepEqual(invalidFields(res.body), ['images']);
    }
    const asArray = await c.put(`/api/crop/crop/${g.crop}`, { json: { images: ['/a.jpg', { a: 1 }] } });
    assert.equal(asArray.status, 422, asArray.text);
    assert.deepEqual(invalidFields(asArray.body), ['images.1']);
    const seasonImages = await c.put(`/api/crop/season/${g.season}`, { json: { images: '[{"a":1}]' } });
    assert.equal(seasonImages.status, 422, seasonImages.text);
    assert.deepEqual(invalidFields(seasonImages.body), ['images']);
    assert.deepEqual((await c.get(`/api/crop/crop/${g.crop}`)).body[0], before);
    const ok = await c.put(`/api/crop/crop/${g.crop}`, { json: { images: '["/a.jpg","/b.jpg"]' } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await c.get(`/api/crop/crop/${g.crop}`)).body[0].images, '["/a.jpg","/b.jpg"]');
  });

  it('answers 422 for null in a field that may not be null, and changes nothing', async () => {
    const before = (await c.get(`/api/crop/crop/${g.crop}`)).body[0];
    for (const field of ['status', 'price', 'code', 'name']) {
      const res = await c.put(`/api/crop/crop/${g.crop}`, { json: { [field]: null } });
      assert.equal(res.status, 422, `${field}: ${res.text}`);
      assert.deepEqual(invalidFields(res.body), [field]);
    }
    const created = await c.post('/api/crop/crop', { json: { name: 'Null price', price: null } });
    assert.equal(created.status, 422, created.text);
    assert.deepEqual(invalidFields(created.body), ['price']);
    assert.deepEqual((await c.get(`/api/crop/crop/${g.crop}`)).body[0], before);
    // Where the spec allows null, null still clears.
    const cleared = await c.put(`/api/crop/season/${g.season}`, { json: { attach_files: null } });
    assert.equal(cleared.status, 200, cleared.text);
    const season = await c.put(`/api/crop/season/${g.season}`, { json: { status: null } });
    assert.equal(season.status, 422, season.text);
    assert.deepEqual(invalidFields(season.body), ['status']);
  });

  it('compares one side of a range sent alone with the stored other side', async () => {
    const season = `/api/crop/season/${g.season}`;
    const set = await c.put(season, { json: { start_date: '2026-03-10', end_date: '2026-06-10' } });
    assert.equal(set.status, 200, set.text);
    const earlyEnd = await c.put(season, { json: { end_date: '2026-03-01' } });
    assert.equal(earlyEnd.status, 422, earlyEnd.text);
    assert.deepEqual(invalidFields(earlyEnd.body), ['end_date']);
    const lateStart = await c.put(season, { json: { start_date: '2026-07-01' } });
    assert.equal(lateStart.status, 422, lateStart.text);
    assert.deepEqual(invalidFields(lateStart.body), ['start_date']);
    const stored = (await c.get(season)).body[0];
    assert.equal(stored.start_date, '2026-03-10');
    assert.equal(stored.end_date, '2026-06-10');
    assert.equal((await c.put(season, { json: { end_date: '2026-03-10' } })).status, 200);

    const task = `/api/diary/production/${g.task}`;
    const setTask = await c.put(task, { json: { start: '2026-03-10 08:00:00', end: '2026-03-10 10:00:00' } });
    assert.equal(setTask.status, 200, setTask.text);
    const earlyTaskEnd = await c.put(task, { json: { end: '2026-03-10 07:00:00' } });
    assert.equal(earlyTaskEnd.status, 422, earlyTaskEnd.text);
    assert.deepEqual(invalidFields(earlyTaskEnd.body), ['end']);
    const lateTaskStart = await c.put(task, { json: { start: '2026-03-11 07:00:00' } });
    assert.equal(lateTaskStart.status, 422, lateTaskStart.text);
    assert.deepEqual(invalidFields(lateTaskStart.body), ['start']);
    assert.equal((await c.put(task, { json: { end: '2026-03-10 09:00:00' } })).status, 200);
  });

  it('refuses instants outside the years 0001-9999 and reads years 0001-0099 as written', async () => {
    const task = `/api/diary/production/${g.task}`;
    for (const start of ['9999-12-31T23:00:00-05:00', '0001-01-01T00:30:00+01:00', '0000-06-01 00:00:00']) {
      const res = await c.put(task, { json: { start, end: null } });
      assert.equal(res.status, 422, `${start}: ${res.text}`);
      assert.deepEqual(invalidFields(res.body), ['start']);
    }
    const edge = await c.put(task, { json: { start: '9999-12-31T18:59:59-05:00', end: null } });
    assert.equal(edge.status, 200, edge.text);
    assert.equal((await c.get(task)).body[0].start, '9999-12-31 23:59:59');
    const season = `/api/crop/season/${g.season}`;
    const early = await c.put(season, { json: { start_date: '0048-02-29', end_date: '0048-03-01' } });
    assert.equal(early.status, 200, early.text);
    const stored = (await c.get(season)).body[0];
    assert.equal(stored.start_date, '0048-02-29');
    assert.equal((await c.put(season, { json: { start_date: '0049-02-29' } })).status, 422);
  });
});
