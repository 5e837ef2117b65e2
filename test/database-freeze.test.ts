// PostgreSQL stops answering without closing anything (SIGSTOP: a hung server, a stalled disk): the
// connect and statement timeouts answer 503 in a few seconds instead of hanging, connections that
// timed out are destroyed rather than pooled, and everything works again once the server wakes.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { TEST_SECRET_KEY_HEX } from './support/app.js';
import { loginToken } from './support/factories.js';
import { type PgCluster, pgClusterSkip, startPgCluster } from './support/pg-cluster.js';
import { migrateAndCreateTenant, type ServerProcess, startFurrow } from './support/processes.js';

const OWNER_PASSWORD = 'freeze-owner-pw';
const FREEZE_MS = 12_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Timed {
  what: string;
  status: number;
  body: any;
  retryAfter: string | null;
  endedAt: number;
}

async function timed(what: string, url: string, init: RequestInit = {}): Promise<Timed> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(FREEZE_MS + 10_000) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return {
      what,
      status: res.status,
      body,
      retryAfter: res.headers.get('retry-after'),
      endedAt: Date.now(),
    };
  } catch (err) {
    return { what, status: 0, body: String(err), retryAfter: null, endedAt: Date.now() };
  }
}

describe('PostgreSQL frozen', { skip: pgClusterSkip }, () => {
  let cluster: PgCluster | undefined;
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.stop('SIGKILL');
    await cluster?.destroy();
  });

  it('answers 503 within the timeouts while the server is frozen, and 200 once it wakes', {
    timeout: 120_000,
  }, async () => {
    cluster = await startPgCluster();
    const env = {
      DATABASE_URL: await cluster.createDatabase('furrow_frozen'),
      FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX,
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '1500',
    };
    await migrateAndCreateTenant(env, 'frozen', { username: 'owner', password: OWNER_PASSWORD });
    server = await startFurrow(['serve', '--role', 'all'], { env });
    const base = server.url;
    const token = await loginToken(base, 'frozen', { username: 'owner', password: OWNER_PASSWORD });
    const auth = { authorization: `Bearer ${token}` };
    const list = (what: string) => timed(what, `${base}/api/crop/crop`, { headers: auth });
    const create = (what: string) =>
      timed(what, `${base}/api/crop/crop`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: what }),
      });
    // Fill the pool with open connections, so the freeze finds both idle connections (a statement
    // sent on one is never answered) and none free (new ones wait, then connect to a server that
    // does not answer).
    for (const answer of await Promise.all(Array.from({ length: 10 }, (_, i) => list(`warm ${i}`)))) {
      assert.equal(answer.status, 200);
    }

    cluster.freeze();
    const frozenAt = Date.now();
    const thawAt = frozenAt + FREEZE_MS;
    const thawed = sleep(FREEZE_MS).then(() => cluster!.thaw());
    try {
      // More requests than the pool has connections, then as many again: a connection whose
      // statement timed out must be destroyed, or the second wave would find the pool full of them.
      const wave = (n: number) =>
        Promise.all([
          ...Array.from({ length: 12 }, (_, i) => list(`wave ${n} list ${i}`)),
          create(`wave ${n} create`),
          timed(`wave ${n} readyz`, `${base}/readyz`),
        ]);
      const first = await wave(1);
      const second = await wave(2);
      for (const answer of [...first, ...second]) {
        assert.equal(answer.status, 503, `${answer.what}: ${JSON.stringify(answer.body)}`);
        assert.ok(
          answer.endedAt < thawAt - 1000,
          `${answer.what} answered ${answer.endedAt - frozenAt} ms into a freeze of ${FREEZE_MS} ms`,
        );
        assert.equal(answer.body[0].meta.status_code, 503);
        assert.deepEqual(answer.body[0].data, []);
        assert.match(answer.retryAfter ?? '', /^\d+$/);
      }
      const ready = first.find((a) => a.what.endsWith('readyz'))!;
      assert.match(ready.body[0].meta.message, /did not answer in time/);
    } finally {
      await thawed;
    }

    // Awake again: ready and serving, with no restart.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ready = await timed('readyz', `${base}/readyz`);
      if (ready.status === 200) break;
      assert.ok(Date.now() < deadline, `/readyz still ${ready.status} after the thaw`);
      await sleep(200);
    }
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => list(`after ${i}`)));
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal((await create('after create')).status, 201);
    assert.equal(server.child.exitCode, null, server.output());
  });
});
