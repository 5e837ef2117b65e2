// Big records cannot exhaust the memory of the process that lists them: 400 crops with 190 KB
// descriptions and four concurrent pages of 1000 must leave a real `furrow serve` process's peak
// resident memory (VmHWM, read from /proc) about where it was, and answer a 422 that says how many
// records do fit in a page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, it } from 'node:test';
import { client } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken } from './support/factories.js';
import { migrateAndCreateTenant, type ServerProcess, startFurrow } from './support/processes.js';
import { assertErrorShape } from './support/resources.js';

const CROPS = 400;
const DESCRIPTION = 'Rau cải xanh, tưới sáng sớm. '.repeat(6_500).slice(0, 190_000);
/** How much the peak may grow while the large pages are asked for (it grew by 1.3 GB unbounded). */
const PEAK_GROWTH_LIMIT_MB = 150;

function memoryMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  assert.ok(kb > 0, `${field} of ${pid}`);
  return kb / 1024;
}

forEachDialect('large pages', (database) => {
  let server: ServerProcess;
  let c: ReturnType<typeof client>;

  before(async () => {
    const env = { DATABASE_URL: database.url, FURROW_SECRET_KEY: 'ab'.repeat(32) };
    await migrateAndCreateTenant(env, 'big', { username: 'owner', password: 'long-enough-1' });
    server = await startFurrow(['serve', '--role', 'api'], { env, timeoutMs: 60_000 });
    c = client(
      server.url,
      await loginToken(server.url, 'big', { username: 'owner', password: 'long-enough-1' }),
    );
    for (let start = 0; start < CROPS; start += 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const res = await c.post('/api/crop/crop', {
            json: { name: `Big crop ${start + i}`, description: DESCRIPTION },
          });
          assert.equal(res.status, 201, res.text);
        }),
      );
    }
  });
  after(() => server?.stop());

  it('answers a page too large for memory with a 422 saying how many records fit, and stays small', async () => {
    const pid = server.child.pid!;
    const peakBefore = memoryMb(pid, 'VmHWM');
    const pages = await Promise.all([
      c.get('/api/crop/crop?pageLimit=1000'),
      c.get('/api/crop/crop?pageLimit=1000'),
      c.get('/api/crop/crop?pageLimit=1000&search[name]=Big'),
      c.get('/api/crop/crop?pageLimit=1000&page=0&search[name]=crop'),
    ]);
    let fits = 0;
    for (const res of pages) {
      assert.equal(res.status, 422, res.text.slice(0, 300));
      const meta = assertErrorShape(res.body, 422);
      assert.equal(meta.errors?.[0]?.field, 'pageLimit');
      const said = /at most (\d+) records/.exec(meta.errors?.[0]?.message ?? '');
      assert.ok(said, meta.errors?.[0]?.message);
      fits = Number(said[1]);
    }
    // 8 MB of text holds 44 of these records.
    assert.ok(fits >= 40 && fits <= 44, `fits ${fits}`);
    const growth = memoryMb(pid, 'VmHWM') - peakBefore;
    assert.ok(growth < PEAK_GROWTH_LIMIT_MB, `peak resident memory grew by ${growth.toFixed(0)} MB`);

    // The page the answer suggests is served, and paging on with it reaches every record.
    let seen = 0;
    for (let page = 0; ; page++) {
      const res = await c.get(`/api/crop/crop?pageLimit=${fits}&page=${page}`);
      assert.equal(res.status, 200, res.text.slice(0, 300));
      seen += res.body.length;
      if (res.body.length < fits) break;
    }
    assert.equal(seen, CROPS);
    assert.equal((await c.get('/healthz')).status, 200);
  });
});
