// Optimistic concurrency on every resource with a detail: ETag on detail and PUT answers, 304 on
// If-None-Match, 412 on a stale If-Match for PUT and DELETE, and a check that cannot be split from
// its write, on both databases (two PUTs racing with the same If-Match: one wins).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { cropService } from '../src/modules/crops/crop.service.js';
import { entityTag, writeIfMatch } from '../src/platform/resource/etag.js';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from './support/factories.js';
import { assertErrorShape, type Client, type Graph, seedGraph } from './support/resources.js';

const STRONG_TAG = /^"[A-Za-z0-9_-]{27}"$/;

forEachDialect('optimistic concurrency', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let owner: Client;
  let staff: Client;
  let staffId: number;
  let g: Graph;

  before(async () => {
    t = await startTestApp(database.url);
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    const worker = await makeUser(t.database.db, farm, 'staff');
    staffId = worker.id;
    staff = client(t.url, await loginToken(t.url, farm.code, worker));
    g = await seedGraph(owner);
  });
  after(() => t.close());

  const newCrop = async (name = 'Tomato'): Promise<number> => {
    const res = await owner.post('/api/crop/crop', {
      json: { name, code: name.toUpperCase(), crop_type: g.cropType },
    });
    assert.equal(res.status, 201, res.text);
    return res.body[0].id;
  };
  const etagOf = async (c: Client, path: string): Promise<string> => {
    const res = await c.get(path);
    assert.equal(res.status, 200, res.text);
    const tag = res.headers.get('etag');
    assert.ok(tag, `${path} has an ETag`);
    return tag;
  };

  describe('detail reads', () => {
    it('carry a strong ETag that stays while the record does and changes with it', async () => {
      const path = `/api/crop/crop/${await newCrop()}`;
      const first = await etagOf(owner, path);
      assert.match(first, STRONG_TAG);
      assert.equal(await etagOf(owner, path), first);
      const put = await owner.put(path, { json: { price: 120 } });
      assert.equal(put.status, 200);
      const changed = await etagOf(owner, path);
      assert.notEqual(changed, first);
      assert.equal(put.headers.get('etag'), changed, 'the PUT answer carries the new version');
    });

    it('answer 304 with the ETag and no body when If-None-Match names the version', async () => {
      const path = `/api/crop/crop/${await newCrop()}`;
      const tag = await etagOf(owner, path);
      for (const header of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const res = await owner.get(path, { headers: { 'if-none-match': header } });
        assert.equal(res.status, 304, header);
        assert.equal(res.text, '');
        assert.equal(res.headers.get('etag'), tag);
      }
      for (const header of ['"other"', tag.slice(1, -1), 'W/"x"']) {
        const res = await owner.get(path, { headers: { 'if-none-match': header } });
        assert.equal(res.status, 200, header);
        assert.equal(res.body[0].name, 'Tomato');
      }
      // A missing record is still a 404, whatever the header says.
      const missing = await owner.get('/api/crop/crop/999999', { headers: { 'if-none-match': '*' } });
      assertErrorShape(missing.body, 404);
    });

    it('cover the `data` envelope and the path without the slash (season templates)', async () => {
      const path = `/api/template/season/${g.template}`;
      const tag = await etagOf(owner, path);
      assert.equal(await etagOf(owner, `/api/template/season${g.template}`), tag);
      const res = await owner.get(path, { headers: { 'if-none-match': tag } });
      assert.equal(res.status, 304);
    });
  });

  describe('PUT', () => {
    it('answers the new ETag in the confirmation and in the representation', async () => {
      const path = `/api/crop/crop/${await newCrop()}`;
      const confirmed = await owner.put(path, { json: { sku: 'A-1' } });
      assert.deepEqual(confirmed.body, [{ status_code: 0, message: 'Updated successfully' }]);
      assert.equal(confirmed.headers.get('etag'), await etagOf(owner, path));
      const represented = await owner.put(path, {
        json: { sku: 'A-2' },
        headers: { prefer: 'return=representation' },
      });
      assert.equal(represented.body[0].sku, 'A-2');
      assert.equal(represented.headers.get('etag'), await etagOf(owner, path));
    });

    it('changes with the current If-Match and answers 412 to a stale one, in both languages', async () => {
      const path = `/api/crop/crop/${await newCrop()}`;
      const stale = await etagOf(owner, path);
      const ok = await owner.put(path, { json: { sku: 'B-1' }, headers: { 'if-match': stale } });
      assert.equal(ok.status, 200, ok.text);
      const current = ok.headers.get('etag') as string;

      const refused = await owner.put(path, { json: { sku: 'B-2' }, headers: { 'if-match': stale } });
      const meta = assertErrorShape(refused.body, 412);
      assert.equal(meta.message, 'The record changed since you read it; read it again');
      assert.equal(refused.headers.get('etag'), null);
      const vi = await owner.put(path, {
        json: { sku: 'B-2' },
        headers: { 'if-match': stale, 'accept-language': 'vi' },
      });
      assert.equal(
        assertErrorShape(vi.body, 412).message,
        'Bản ghi đã thay đổi kể từ lúc bạn đọc; hãy đọc lại',
      );
      assert.equal((await owner.get(path)).body[0].sku, 'B-1', 'a refused PUT changes nothing');

      // A weak tag never matches If-Match (strong comparison); a list matches when one does.
      assertErrorShape(
        (await owner.put(path, { json: { sku: 'B-3' }, headers: { 'if-match': `W/${current}` } })).body,
        412,
      );
      const listed = await owner.put(path, {
        json: { sku: 'B-3' },
        headers: { 'if-match': `"x", ${current}` },
      });
      assert.equal(listed.status, 200);
      const any = await owner.put(path, { json: { sku: 'B-4' }, headers: { 'if-match': '*' } });
      assert.equal(any.status, 200);
      assert.equal((await owner.get(path)).body[0].sku, 'B-4');
    });

    it('keeps 404 for a missing record and 422 for a bad body with a current If-Match', async () => {
      const missing = await owner.put('/api/crop/crop/999999', {
        json: { sku: 'x' },
        headers: { 'if-match': '*' },
      });
      assertErrorShape(missing.body, 404);
      const path = `/api/crop/crop/${await newCrop()}`;
      const tag = await etagOf(owner, path);
      const bad = await owner.put(path, { json: { price: 'many' }, headers: { 'if-match': tag } });
      assertErrorShape(bad.body, 422);
      assert.equal(await etagOf(owner, path), tag);
    });

    it('lets exactly one of two racing PUTs with the same If-Match win; the other gets 412', async () => {
      for (let round = 0; round < 5; round++) {
        const path = `/api/crop/crop/${await newCrop(`Race${round}`)}`;
        const tag = await etagOf(owner, path);
        // Two writers each round; six in the last.
        const skus = round < 4 ? ['left', 'right'] : ['a', 'b', 'c', 'd', 'e', 'f'];
        const answers = await Promise.all(
          skus.map((sku) => owner.put(path, { json: { sku }, headers: { 'if-match': tag } })),
        );
        const statuses = answers.map((res) => res.status).sort();
        const expected = [200, ...skus.slice(1).map(() => 412)];
        assert.deepEqual(statuses, expected, `round ${round}: ${answers.map((a) => a.text).join(' | ')}`);
        const winner = answers.find((res) => res.status === 200);
        assert.equal(winner?.headers.get('etag'), await etagOf(owner, path));
      }
    });

    it('holds the record from the check to its write: another writer waits, then sees the new version', async () => {
      const id = await newCrop('Between');
      const ctx = { scope: { db: t.database.db, tenantId: farm.id }, clock: t.clock, user: ownerUser() };
      const tag = entityTag(await cropService.get(ctx, id));
      let competing: Promise<unknown> | undefined;
      let competingDone = false;
      await writeIfMatch(ctx, tag, {
        lock: (tx) => cropService.lock(tx, id),
        read: async (tx) => {
          const record = await cropService.get(tx, id);
          // A plain write (no If-Match) of the same record, started after the check read it.
          competing = cropService.update(ctx, id, { sku: 'competing' }).then(() => {
            competingDone = true;
          });
          await sleep(150);
          return record;
        },
        write: async (tx) => {
          assert.equal(competingDone, false, 'the other write waits for the checked one');
          return cropService.update(tx, id, { sku: 'checked' });
        },
      });
      await competing;
      assert.equal(((await cropService.get(ctx, id)) as { sku: string }).sku, 'competing');
      // And a checked write that comes second sees the version the first one left: 412.
      await assert.rejects(
        writeIfMatch(ctx, tag, {
          lock: (tx) => cropService.lock(tx, id),
          read: (tx) => cropService.get(tx, id),
          write: (tx) => cropService.update(tx, id, { sku: 'late' }),
        }),
        (err: { status?: number }) => err.status === 412,
      );
    });
  });

  describe('DELETE', () => {
    it('answers 412 to a stale If-Match and deletes with the current one', async () => {
      const path = `/api/crop/crop/${await newCrop()}`;
      const stale = await etagOf(owner, path);
      await owner.put(path, { json: { sku: 'C-1' } });
      assertErrorShape((await owner.delete(path, { headers: { 'if-match': stale } })).body, 412);
      assert.equal((await owner.get(path)).status, 200, 'a refused DELETE deletes nothing');
      const done = await owner.delete(path, { headers: { 'if-match': await etagOf(owner, path) } });
      assert.deepEqual(done.body, [{ status_code: 0, message: 'Deleted successfully' }]);
      assertErrorShape((await owner.get(path)).body, 404);
      assertErrorShape((await owner.delete(path, { headers: { 'if-match': '*' } })).body, 404);
    });

    it('works on the `data` envelope (season templates)', async () => {
      const created = await owner.post('/api/template/season', {
        json: { name: 'Gone soon', crop_id: g.crop },
      });
      const path = `/api/template/season/${created.body.data.id}`;
      assertErrorShape((await owner.delete(path, { headers: { 'if-match': '"stale"' } })).body, 412);
      const done = await owner.delete(path, { headers: { 'if-match': await etagOf(owner, path) } });
      assert.equal(done.status, 200);
    });
  });

  describe('under load', () => {
    it('checked deletes and changes go through while records of the same table are created', async () => {
      // Creating and deleting records update the same per-table count row; a checked write must
      // wait for it, never fail for it.
      const ids: number[] = [];
      for (let i = 0; i < 10; i++) ids.push(await newCrop(`Load${i}`));
      const tags = await Promise.all(ids.map((id) => etagOf(owner, `/api/crop/crop/${id}`)));
      const answers = await Promise.all([
        ...Array.from({ length: 30 }, (_, i) =>
          owner.post('/api/crop/crop', { json: { name: `New${i}`, crop_type: g.cropType } }),
        ),
        ...ids.map((id, i) => {
          const headers = { 'if-match': tags[i] as string };
          return i % 2 === 0
            ? owner.delete(`/api/crop/crop/${id}`, { headers })
            : owner.put(`/api/crop/crop/${id}`, { json: { sku: 'loaded' }, headers });
        }),
      ]);
      const failed = answers.filter((res) => res.status >= 300).map((res) => res.text);
      assert.deepEqual(failed, []);
    });
  });

  describe('webhook endpoints (string ids, `data`, the record as the PUT answer)', () => {
    it('carry ETags, answer 304, 412 on a stale If-Match, and race like the others', async () => {
      const created = await owner.post('/api/webhooks', {
        json: { url: 'https://93.184.215.14/hook', events: ['harvest.batch.created'] },
      });
      assert.equal(created.status, 201, created.text);
      const path = `/api/webhooks/${created.body.data.id}`;
      const tag = await etagOf(owner, path);
      assert.equal((await owner.get(path, { headers: { 'if-none-match': tag } })).status, 304);

      const changed = await owner.put(path, { json: { description: 'ERP' }, headers: { 'if-match': tag } });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.description, 'ERP');
      const current = changed.headers.get('etag') as string;
      assert.notEqual(current, tag);
      assert.equal(await etagOf(owner, path), current);
      assertErrorShape(
        (await owner.put(path, { json: { description: 'x' }, headers: { 'if-match': tag } })).body,
        412,
      );

      const answers = await Promise.all(
        ['a', 'b'].map((description) =>
          owner.put(path, { json: { description }, headers: { 'if-match': current } }),
        ),
      );
      assert.deepEqual(answers.map((res) => res.status).sort(), [200, 412]);

      assertErrorShape((await owner.delete(path, { headers: { 'if-match': current } })).body, 412);
      const done = await owner.delete(path, { headers: { 'if-match': await etagOf(owner, path) } });
      assert.equal(done.status, 200, done.text);
      // Staff are refused before any precondition, as before.
      assertErrorShape((await staff.get(path, { headers: { 'if-none-match': '*' } })).body, 403);
    });
  });

  describe('every resource with a detail', () => {
    it('answers the version on PUT that its detail then shows, and refuses the one before', async () => {
      const made = async (path: string, json: Record<string, unknown>) => {
        const res = await owner.post(path, { json });
        assert.equal(res.status, 201, `${path}: ${res.text}`);
        return Array.isArray(res.body) ? res.body[0].id : res.body.data.id;
      };
      const device = await made('/api/iot/devices', { code: 'etag-dev-1', zone_id: g.zone });
      const rule = await made('/api/iot/rules', {
        metric: 'temperature',
        operator: 'gt',
        threshold: 30,
        device_id: device,
      });
      const user = await made('/api/users', { username: 'etag-user', password: 'long enough secret' });
      const changes: [string, Record<string, unknown>][] = [
        [`/api/crop/crop/${g.crop}`, { sku: 'E-1' }],
        [`/api/croptype/croptype/${g.cropType}`, { name: 'Changed type' }],
        [`/api/productcategory/productcategory/${g.category}`, { name: 'Changed category' }],
        [`/api/diary/production/${g.task}`, { description: 'changed' }],
        [`/api/crop/season/${g.season}`, { name: 'Changed season' }],
        [`/api/crop/season${g.season}`, { name: 'Changed again' }],
        [`/api/farms/${g.farm}`, { name: 'Changed farm' }],
        [`/api/blocks/${g.block}`, { name: 'Changed block' }],
        [`/api/zones/${g.zone}`, { name: 'Changed zone' }],
        [`/api/parcels/${g.parcel}`, { name: 'Changed parcel' }],
        [`/api/diary/categories/${g.diaryCategory}`, { name: 'Changed stage' }],
        [`/api/diary/subcategories/${g.subcategory}`, { name: 'Changed sub' }],
        [`/api/users/${user}`, { firstname: 'Binh' }],
        [`/api/iot/devices/${device}`, { name: 'Changed device' }],
        [`/api/iot/rules/${rule}`, { threshold: 31 }],
      ];
      for (const [path, json] of changes) {
        const before = await etagOf(owner, path);
        const res = await owner.put(path, { json, headers: { 'if-match': before } });
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        const after = res.headers.get('etag');
        assert.notEqual(after, before, path);
        assert.equal(after, await etagOf(owner, path), path);
        assertErrorShape((await owner.put(path, { json, headers: { 'if-match': before } })).body, 412);
        assertErrorShape((await owner.delete(path, { headers: { 'if-match': before } })).body, 412);
      }
      const key = await made('/api/auth/api-keys', { name: 'etag gateway', role: 'staff' });
      const keyPath = `/api/auth/api-keys/${key}`;
      assertErrorShape((await owner.delete(keyPath, { headers: { 'if-match': '"stale"' } })).body, 412);
      const revoked = await owner.delete(keyPath, { headers: { 'if-match': await etagOf(owner, keyPath) } });
      assert.equal(revoked.status, 200, revoked.text);
    });
  });

  describe('staff rules', () => {
    it('stay as they were: owners-only writes and tasks of others are 403 whatever If-Match says', async () => {
      const farmPath = `/api/farms/${g.farm}`;
      const farmTag = await etagOf(staff, farmPath);
      assertErrorShape(
        (await staff.put(farmPath, { json: { name: 'x' }, headers: { 'if-match': farmTag } })).body,
        403,
      );
      assertErrorShape((await staff.delete(farmPath, { headers: { 'if-match': farmTag } })).body, 403);

      const othersTask = `/api/diary/production/${g.task}`;
      const othersTag = await etagOf(staff, othersTask);
      assertErrorShape(
        (await staff.put(othersTask, { json: { done: true }, headers: { 'if-match': othersTag } })).body,
        403,
      );
      assertErrorShape((await staff.delete(othersTask, { headers: { 'if-match': othersTag } })).body, 403);

      const mine = await owner.post('/api/diary/production', {
        json: { name: 'Weed row 3', season_id: g.season, assigned_to: staffId },
      });
      const minePath = `/api/diary/production/${mine.body[0].id}`;
      const mineTag = await etagOf(staff, minePath);
      const done = await staff.put(minePath, { json: { done: true }, headers: { 'if-match': mineTag } });
      assert.equal(done.status, 200, done.text);
      assertErrorShape(
        (await staff.put(minePath, { json: { description: 'x' }, headers: { 'if-match': mineTag } })).body,
        412,
      );
    });
  });

  const ownerUser = () => ({
    id: farm.owner.id,
    username: 'owner',
    name: 'Ana Tran',
    firstname: 'Ana',
    lastname: 'Tran',
    picture: null,
    role: 'owner' as const,
  });
});
