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
});
