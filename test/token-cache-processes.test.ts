// Resolved tokens are cached by every API process on PostgreSQL too: two real `furrow serve --role
// api` processes on one database. A logout, a new password or a revoked API key made through one
// process is refused by the other as soon as the NOTIFY of the change reaches it; a write nobody
// announced is not seen by a process that has the token cached (the cache is really used) until its
// LISTEN connection is replaced, which makes it read everything again.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from '../src/platform/db/database.js';
import { CHANGES_APPLICATION_NAME } from '../src/platform/db/postgres-changes.js';
import { sha256Hex } from '../src/platform/ids.js';
import { client, TEST_SECRET_KEY_HEX } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from './support/factories.js';
import { type ServerProcess, startFurrow } from './support/processes.js';

/** The status `check` answers once it is `status`, or fails after timeoutMs. */
async function becomes(status: number, check: () => Promise<number>, timeoutMs = 5_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const got = await check();
    if (got === status) return Date.now() - started;
    if (Date.now() - started > timeoutMs)
      assert.fail(`still ${got} after ${timeoutMs} ms, expected ${status}`);
    await sleep(5);
  }
}

forEachDialect('token cache across API processes', (database) => {
  // SQLite is one process by design; several API processes sharing a database is the PostgreSQL set-up.
  if (database.dialect !== 'postgres') return;

  let handle: DatabaseHandle;
  let farm: TestTenant;
  const apis: ServerProcess[] = [];

  before(async () => {
    handle = openDatabase(database.url, { maxConnections: 2 });
    farm = await makeTenant(handle.db);
    const env = { DATABASE_URL: database.url, FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX };
    apis.push(
      ...(await Promise.all(
        [1, 2].map(() => startFurrow(['serve', '--role', 'api'], { env, timeoutMs: 60_000 })),
      )),
    );
  });
  after(async () => {
    await Promise.all(apis.map((api) => api.stop('SIGKILL')));
    await handle?.close();
  });

  const me = (api: ServerProcess, token: string) =>
    client(api.url, token)
      .get('/api/auth/me')
      .then((r) => r.status);

  it('refuses on the other process a token logged out, a password changed or a key revoked on one', async () => {
    const [a, b] = [apis[0]!, apis[1]!];
    const leaving = await loginToken(a.url, farm.code, farm.owner);
    assert.equal(await me(b, leaving), 200);
    assert.equal(await me(b, leaving), 200);
    assert.equal((await client(a.url, leaving).post('/api/auth/logout')).status, 200);
    assert.equal(await me(a, leaving), 401);
    await becomes(401, () => me(b, leaving));

    const owner = client(a.url, await loginToken(a.url, farm.code, farm.owner));
    const staff = await makeUser(handle.db, farm, 'staff');
    const staffToken = await loginToken(b.url, farm.code, staff);
    assert.equal(await me(b, staffToken), 200);
    assert.equal(
      (await owner.put(`/api/users/${staff.id}`, { json: { password: 'a-new-password' } })).status,
      200,
    );
    await becomes(401, () => me(b, staffToken));

    const made = await owner.post('/api/auth/api-keys', { json: { name: 'gateway', role: 'staff' } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const key = made.body.data.key as string;
    assert.equal(await me(b, key), 200);
    assert.equal((await owner.delete(`/api/auth/api-keys/${made.body.data.id}`)).status, 200);
    await becomes(401, () => me(b, key));
  });

  it('uses its cache, and reads everything again once its LISTEN connection is replaced', async () => {
    const b = apis[1]!;
    const token = await loginToken(b.url, farm.code, farm.owner);
    assert.equal(await me(b, token), 200);
    // Revoked by SQL that tells no process: a process that cached the token still takes it.
    await handle.db
      .updateTable('access_tokens')
      .set({ revoked_at: Date.now() })
      .where('token_hash', '=', sha256Hex(token))
      .execute();
    assert.equal(await me(b, token), 200);
    // Every process's LISTEN connection is cut: each stops trusting what it cached.
    const cut = await sql<{ pid: number }>`
      select pg_terminate_backend(pid) as pid from pg_stat_activity
      where application_name = ${CHANGES_APPLICATION_NAME} and datname = current_database()`.execute(
      handle.db,
    );
    assert.equal(cut.rows.length, 2, 'one LISTEN connection per API process');
    await becomes(401, () => me(b, token));
  });
});
