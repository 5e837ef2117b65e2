import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import {
  type Client,
  FIELDS,
  type Graph,
  invalidFields,
  keys,
  seedGraph,
} from '../../../test/support/resources.js';

forEachDialect('production diary', (database) => {
  let t: TestApp;
  let owner: Client;
  let staff: Client;
  let staffId: number;
  let farm: TestTenant;
  let g: Graph;
  let water: number;
  let feed: number;

  before(async () => {
    t = await startTestApp(database.url);
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    const worker = await makeUser(t.database.db, farm, 'staff');
    staffId = worker.id;
    staff = client(t.url, await loginToken(t.url, farm.code, worker));
    g = await seedGraph(owner);
    water = (
      await owner.post('/api/diary/subcategories', {
        json: { name: 'Water', category_task_id: g.diaryCategory },
      })
    ).body[0].id;
    feed = (
      await owner.post('/api/diary/subcategories', {
        json: { name: 'Feed', category_task_id: g.diaryCategory },
      })
    ).body[0].id;
  });
  after(() => t.close());

  it('creates a task with nested category, season, users and sub_cates with pivot; the user is the token', async () => {
    const res = await staff.post('/api/diary/production', {
      json: {
        name: 'Irrigate',
        description: '<b>Drip</b>',
        start: '2026-04-01T07:30:00+07:00',
        end: '2026-04-01 02:00:00',
        location: 'Block A',
        images: [],
        season_id: g.season,
        category_task_id: g.diaryCategory,
        assigned_to: farm.owner.id,
        sub_cates: [water, { id: feed }],
        user_id: farm.owner.id,
        amount: 3,
      },
    });
    assert.equal(res.status, 201, res.text);
    const [task] = res.body;
    assert.deepEqual(keys(task), FIELDS.task);
    assert.equal(task.start, '2026-04-01 00:30:00');
    assert.equal(task.end, '2026-04-01 02:00:00');
    assert.deepEqual(task.images, []);
    assert.deepEqual(task.category, { id: g.diaryCategory, name: 'Seed stage' });
    assert.deepEqual(task.season, { id: g.season, name: 'Seed season' });
    assert.equal(task.user_id, staffId, 'the creating user comes from the token');
    assert.deepEqual(keys(task.user), FIELDS.taskUser);
    assert.deepEqual(task.assigned, {
      id: farm.owner.id,
      name: 'Ana Tran',
      firstname: 'Ana',
      lastname: 'Tran',
      picture: null,
    });
    assert.deepEqual(task.sub_cates, [
      { id: water, name: 'Water', pivot: { production_daily_id: task.id, sub_cate_id: water } },
      { id: feed, name: 'Feed', pivot: { production_daily_id: task.id, sub_cate_id: feed } },
    ]);
    assert.equal(task.amount, 3);
    assert.deepEqual((await owner.get(`/api/diary/production/${task.id}`)).body, [task]);
  });

  it('accepts the form-encoded shape of the original clients (bracket arrays, assigned_to[])', async () => {
    const res = await owner.post('/api/diary/production', {
      form: `name=Spray&start=2026-04-02+08:00:00&sub_cates[]=${water}&assigned_to[]=${staffId}&images[]=a.jpg&season_id=${g.season}`,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body[0].assigned_to, staffId);
    assert.deepEqual(res.body[0].images, ['a.jpg']);
    assert.deepEqual(
      res.body[0].sub_cates.map((s: { id: number }) => s.id),
      [water],
    );
    assert.equal(res.body[0].end, null);
    assert.equal(res.body[0].category, null);
  });

  it('PUT replaces sub_cates only when sent, and clears end with null', async () => {
    const [task] = (
      await owner.post('/api/diary/production', {
        json: { name: 'Prune', start: '2026-04-03 09:00:00', end: '2026-04-03 10:00:00', sub_cates: [water] },
      })
    ).body;
    const renamed = await owner.put(`/api/diary/production/${task.id}`, {
      json: { name: 'Prune again' },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(renamed.body[0].sub_cates.length, 1);
    const replaced = await owner.put(`/api/diary/production/${task.id}`, {
      json: { sub_cates: [feed], end: null },
      headers: { prefer: 'return=representation' },
    });
    assert.deepEqual(
      replaced.body[0].sub_cates.map((s: { id: number }) => s.id),
      [feed],
    );
    assert.equal(replaced.body[0].end, null);
    assert.equal(replaced.body[0].start, '2026-04-03 09:00:00');
  });

  it('lists with strSearch[] and overlapping date ranges; a date-only to_date includes the day', async () => {
    await owner.post('/api/diary/production', {
      json: { name: 'Harvest lettuce', start: '2026-05-10 16:00:00', end: '2026-05-11 10:00:00' },
    });
    await owner.post('/api/diary/production', {
      json: { name: 'Harvest kale', start: '2026-05-12 06:00:00' },
    });
    const names = async (query: string) =>
      ((await owner.get(`/api/diary/production?strSearch[]=harvest&${query}`)).body as { name: string }[])
        .map((r) => r.name)
        .sort();
    assert.deepEqual(await names(''), ['Harvest kale', 'Harvest lettuce']);
    assert.deepEqual(await names('strSearch[]=KALE'), ['Harvest kale']);
    assert.deepEqual(await names('from_date=2026-05-11&to_date=2026-05-11'), ['Harvest lettuce']);
    assert.deepEqual(await names('to_date=2026-05-10'), ['Harvest lettuce']);
    assert.deepEqual(await names('from_date=2026-05-11 10:00:01'), ['Harvest kale']);
    assert.deepEqual(await names('from_date=2026-05-12&to_date=2026-05-12 05:59:59'), []);
    assert.deepEqual(await names('to_date=2026-05-12'), ['Harvest kale', 'Harvest lettuce']);
  });

  it('validates timestamps, references and sub_cates, naming the fields', async () => {
    const res = await owner.post('/api/diary/production', {
      json: {
        name: 'x',
        start: '2026-13-01 00:00:00',
        season_id: 999999,
        assigned_to: 999999,
        category_task_id: 999999,
        sub_cates: [999999],
      },
    });
    assert.deepEqual(invalidFields(res.body), [
      'assigned_to',
      'category_task_id',
      'season_id',
      'start',
      'sub_cates',
    ]);
    const refs = await owner.post('/api/diary/production', {
      json: {
        name: 'x',
        season_id: 999999,
        assigned_to: 999999,
        category_task_id: 999999,
        sub_cates: [999999],
      },
    });
    assert.deepEqual(invalidFields(refs.body), ['assigned_to', 'category_task_id', 'season_id', 'sub_cates']);
    const order = await owner.post('/api/diary/production', {
      json: { name: 'x', start: '2026-01-02 00:00:00', end: '2026-01-01 00:00:00' },
    });
    assert.deepEqual(invalidFields(order.body), ['end']);
    const noStart = await owner.put(`/api/diary/production/${g.task}`, { json: { start: null } });
    assert.deepEqual(invalidFields(noStart.body), ['start']);
  });

  it('start defaults to the time of creation', async () => {
    t.clock.set(Date.UTC(2026, 6, 4, 5, 6, 7));
    const res = await owner.post('/api/diary/production', { json: { name: 'Now' } });
    assert.equal(res.body[0].start, '2026-07-04 05:06:07');
  });

  it('sub-categories filter by category and need an existing category', async () => {
    const list = await owner.get(`/api/diary/subcategories?category_task_id=${g.diaryCategory}`);
    assert.ok(list.body.every((s: { category_task_id: number }) => s.category_task_id === g.diaryCategory));
    assert.ok(list.body.length >= 3);
    const missing = await owner.post('/api/diary/subcategories', { json: { name: 'x' } });
    assert.deepEqual(invalidFields(missing.body), ['category_task_id']);
  });

  it('marks a task done and open again: done_at from the clock, done_by the acting user; overdue until done', async () => {
    t.clock.set(Date.UTC(2026, 7, 10, 12, 0, 0));
    const [task] = (
      await owner.post('/api/diary/production', {
        json: {
          name: 'Weed',
          start: '2026-08-09 08:00:00',
          end: '2026-08-09 10:00:00',
          assigned_to: staffId,
        },
      })
    ).body;
    assert.equal(task.done_at, null);
    assert.equal(task.done_by, null);
    assert.equal(task.overdue, true);
    t.clock.set(Date.UTC(2026, 7, 10, 13, 0, 0));
    const done = await staff.put(`/api/diary/production/${task.id}`, {
      json: { done: true },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body[0].done_at, '2026-08-10 13:00:00');
    assert.equal(done.body[0].done_by, staffId);
    assert.equal(done.body[0].overdue, false);
    // Done again (by someone else, later): who did it and when stay.
    t.clock.set(Date.UTC(2026, 7, 11, 9, 0, 0));
    const again = await owner.put(`/api/diary/production/${task.id}`, {
      json: { done: 'true', name: 'Weed rows' },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(again.body[0].done_at, '2026-08-10 13:00:00');
    assert.equal(again.body[0].done_by, staffId);
    assert.equal(again.body[0].name, 'Weed rows');
    const reopened = await owner.put(`/api/diary/production/${task.id}`, {
      json: { done: false },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(reopened.body[0].done_at, null);
    assert.equal(reopened.body[0].done_by, null);
    assert.equal(reopened.body[0].overdue, true);
    const bad = await owner.put(`/api/diary/production/${task.id}`, { json: { done: 'maybe' } });
    assert.equal(bad.status, 422);
    assert.deepEqual(invalidFields(bad.body), ['done']);
    const created = await owner.post('/api/diary/production', { json: { name: 'Done already', done: true } });
    assert.equal(created.body[0].done_by, farm.owner.id);
    assert.equal(created.body[0].done_at, '2026-08-11 09:00:00');
  });

  it('staff change only tasks assigned to them, and only done, description and end; owners change anything', async () => {
    const make = async (assigned: number | null) =>
      (await owner.post('/api/diary/production', { json: { name: 'Mulch', assigned_to: assigned } })).body[0]
        .id as number;
    const own = await make(staffId);
    const others = await make(farm.owner.id);
    const unassigned = await make(null);
    const edit = await staff.put(`/api/diary/production/${own}`, {
      json: { description: 'Straw', end: '2030-01-01 00:00:00', done: true, unknown_field: 1 },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(edit.status, 200, edit.text);
    assert.equal(edit.body[0].description, 'Straw');
    assert.equal(edit.body[0].end, '2030-01-01 00:00:00');
    for (const json of [
      { name: 'Renamed' },
      { assigned_to: farm.owner.id },
      { description: 'x', season_id: g.season },
    ]) {
      const res = await staff.put(`/api/diary/production/${own}`, { json });
      assert.equal(res.status, 403, JSON.stringify(json));
      assert.equal(res.body[0].meta.status_code, 403);
      assert.deepEqual(res.body[0].data, []);
    }
    for (const id of [others, unassigned]) {
      assert.equal((await staff.put(`/api/diary/production/${id}`, { json: { done: true } })).status, 403);
    }
    assert.equal((await staff.delete(`/api/diary/production/${own}`)).status, 403);
    assert.equal((await staff.put('/api/diary/production/999999', { json: { done: true } })).status, 404);
    const [stored] = (await owner.get(`/api/diary/production/${own}`)).body;
    assert.equal(stored.name, 'Mulch');
    assert.equal(stored.assigned_to, staffId);
    const byOwner = await owner.put(`/api/diary/production/${others}`, {
      json: { name: 'Mulch beds', assigned_to: staffId, done: true },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(byOwner.status, 200);
    assert.equal(byOwner.body[0].done_by, farm.owner.id);
    assert.equal((await owner.delete(`/api/diary/production/${unassigned}`)).status, 200);
  });

  it("lists by done, season_id, assigned_to and category_task_id; never another tenant's tasks", async () => {
    const other = await makeTenant(t.database.db);
    const otherOwner = client(t.url, await loginToken(t.url, other.code, other.owner));
    await otherOwner.post('/api/diary/production', { json: { name: 'Filter probe', done: true } });
    const made = async (json: object) =>
      (await owner.post('/api/diary/production', { json: { name: 'Filter probe', ...json } })).body[0]
        .id as number;
    const a = await made({ season_id: g.season, done: true });
    const b = await made({ assigned_to: staffId, category_task_id: g.diaryCategory });
    const c = await made({});
    const ids = async (query: string) =>
      (
        (await owner.get(`/api/diary/production?strSearch[]=filter probe&pageLimit=100&${query}`)).body as {
          id: number;
        }[]
      )
        .map((r) => r.id)
        .sort((x, y) => x - y);
    assert.deepEqual(await ids(''), [a, b, c]);
    assert.deepEqual(await ids('done=true'), [a]);
    assert.deepEqual(await ids('done=false'), [b, c]);
    assert.deepEqual(await ids(`season_id=${g.season}`), [a]);
    assert.deepEqual(await ids(`assigned_to=${staffId}`), [b]);
    assert.deepEqual(await ids(`category_task_id=${g.diaryCategory}&done=false`), [b]);
    const bad = await owner.get('/api/diary/production?done=perhaps&season_id=x');
    assert.equal(bad.status, 422);
    assert.deepEqual(invalidFields(bad.body), ['done', 'season_id']);
  });
});
