// Two real `furrow serve --role api` processes on one PostgreSQL database, raced with the same
// Idempotency-Key: the key's claim is the database's, so one request runs and one record is made.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { type DatabaseHandle, openDatabase } from '../src/platform/db/database.js';
import { request, TEST_SECRET_KEY_HEX } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, type TestTenant } from './support/factories.js';
import { type ServerProcess, startFurrow } from './support/processes.js';

forEachDialect('Idempotency-Key across API processes', (database) => {
  // SQLite is one process by design; several API processes sharing a database is the PostgreSQL set-up.
  if (database.dialect !== 'postgres') return;

  let handle: DatabaseHandle;
  let farm: TestTenant;
  let token: string;
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
    token = await loginToken(apis[0]!.url, farm.code, farm.owner);
  });
  after(async () => {
    await Promise.all(apis.map((api) => api.stop('SIGKILL')));
    await handle?.close();
  });

  const post = (api: ServerProcess, key: string, json: unknown) =>
    request(api.url, 'POST', '/api/crop/crop', {
      token,
      json,
      headers: { 'idempotency-key': key },
    });

  it('runs the request once whichever process gets it, and replays it from the other', async () => {
    for (let round = 0; round < 5; round++) {
      const key = randomUUID();
      const json = { name: `Raced ${key}`, code: `R${round}` };
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => post(apis[i % 2]!, key, json)));
      const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
      assert.equal(
        ran.length,
        1,
        answers.map((a) => `${a.status} ${a.headers.get('idempotent-replayed')}`).join(','),
      );
      for (const a of answers) {
        assert.ok(a.status === 201 || a.status === 409, a.text);
        if (a.status === 201) assert.equal(a.headers.get('location'), ran[0]?.headers.get('location'));
      }
      const rows = await handle.db
        .selectFrom('crops')
        .select('id')
        .where('tenant_id', '=', farm.id)
        .where('name', '=', json.name)
        .execute();
      assert.equal(rows.length, 1, `round ${round}: one record`);
      for (const api of apis) {
        const replay = await post(api, key, json);
        assert.equal(replay.status, 201);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.equal(replay.text, ran[0]?.text);
      }
    }
  });
});
