// On SQLite, another process holding the write lock past the busy timeout (a long import, a
// backup, a second `furrow` command) makes writes answer 503 with Retry-After, committing nothing;
// reads go on, and writes work again once the lock is released.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { client, startTestApp, type TestApp } from './support/app.js';
import { loginToken, makeTenant } from './support/factories.js';

describe('SQLite locked by another process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-locked-'));
  let t: TestApp;
  let api: ReturnType<typeof client>;
  before(async () => {
    t = await startTestApp(`sqlite:${join(dir, 'furrow.db')}`);
    const farm = await makeTenant(t.database.db);
    api = client(t.url, await loginToken(t.url, farm.code, farm.owner));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After to a write that waited out the busy timeout', async () => {
    const other = new SQLite(join(dir, 'furrow.db'));
    try {
      other.exec('begin immediate');
      const startedAt = Date.now();
      const refused = await api.post('/api/crop/crop', { json: { name: 'Waited out' } });
      assert.equal(refused.status, 503, refused.text);
      assert.ok(Date.now() - startedAt >= 4000, 'answered before the busy timeout');
      assert.deepEqual(refused.body, [
        {
          meta: {
            status_code: 503,
            message:
              'The database is unavailable: another process holds its write lock; try again in 5 seconds',
            code: 'database_unavailable',
          },
          data: [],
        },
      ]);
      assert.equal(refused.headers.get('retry-after'), '5');
      const vi = await api.post('/api/crop/crop', {
        json: { name: 'Waited out' },
        headers: { 'accept-language': 'vi' },
      });
      assert.equal(vi.status, 503);
      assert.match(vi.body[0].meta.message, /^Cơ sở dữ liệu tạm thời không dùng được: một tiến trình khác/);
      // Reads are not held up by a writer.
      assert.equal((await api.get('/api/crop/crop')).status, 200);
    } finally {
      other.exec('rollback');
      other.close();
    }
    const created = await api.post('/api/crop/crop', { json: { name: 'After the lock' } });
    assert.equal(created.status, 201, created.text);
    const names = (await api.get('/api/crop/crop?pageLimit=100')).body.map((c: { name: string }) => c.name);
    assert.ok(names.includes('After the lock'));
    assert.ok(!names.includes('Waited out'), 'a write answered 503 was stored');
  });
});
