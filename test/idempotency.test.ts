// Idempotency-Key on both databases, over real HTTP: a retried POST is answered again and does
// nothing again; another request under the same key is refused; a key still running is busy; a
// failure on our side is not kept; keys are the tenant's own, last 24 hours and are pruned after.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { claimIdempotencyKey, pruneIdempotencyKeys } from '../src/platform/db/idempotency-keys.js';
import { createIdempotencyPruning } from '../src/platform/db/idempotency-pruning.js';
import { type ApiResponse, client, request, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, type TestTenant } from './support/factories.js';
import { inlineSchemas } from './support/openapi.js';
import { assertErrorShape, type Client } from './support/resources.js';

const CROPS = '/api/crop/crop';

/** The answer's status and the API's error shape; answers its meta. */
function expectError(res: ApiResponse, status: number) {
  assert.equal(res.status, status, res.text);
  return assertErrorShape(res.body, status);
}
const DAY_MS = 24 * 3_600_000;

forEachDialect('Idempotency-Key', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let neighbour: TestTenant;
  let owner: Client;
  let other: Client;

  before(async () => {
    // Tokens outlive the keys' 24 hours, which the tests go through on the app's clock.
    t = await startTestApp(database.url, { env: { TOKEN_TTL_SECONDS: String(3 * 86_400) } });
    farm = await makeTenant(t.database.db);
    neighbour = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    other = client(t.url, await loginToken(t.url, neighbour.code, neighbour.owner));
  });
  after(() => t.close());

  const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });
  const cropsNamed = async (name: string, tenantId = farm.id) => {
    const row = await t.database.db
      .selectFrom('crops')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const keyRows = async (tenantId: number) =>
    t.database.db.selectFrom('idempotency_keys').selectAll().where('tenant_id', '=', tenantId).execute();

  it('answers a retry with the first answer, marked replayed, and creates one record', async () => {
    const key = randomUUID();
    const json = { name: `Replayed ${key}`, code: 'R1' };
    const first = await owner.post(CROPS, { json, ...keyed(key) });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await owner.post(CROPS, { json, ...keyed(key) });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(again.text, first.text);
    assert.notEqual(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
    assert.equal(await cropsNamed(json.name), 1);
    // A form body that parses to the same fields is the same request.
    const form = await owner.post(CROPS, {
      form: `name=${encodeURIComponent(json.name)}&code=R1`,
      ...keyed(key),
    });
    assert.equal(form.headers.get('idempotent-replayed'), 'true');
    assert.equal(await cropsNamed(json.name), 1);
  });

  it('refuses the key with another body or another path (422), and keeps the first answer', async () => {
    const key = randomUUID();
    const first = await owner.post('/api/croptype/croptype', {
      json: { name: `Type ${key}` },
      ...keyed(key),
    });
    assert.equal(first.status, 201, first.text);
    const otherBody = await owner.post('/api/croptype/croptype', {
      json: { name: 'Another' },
      ...keyed(key),
    });
    expectError(otherBody, 422);
    assert.match(otherBody.body[0].meta.message, /Idempotency-Key was already used with another request/);
    const otherPath = await owner.post('/api/productcategory/productcategory', {
      json: { name: `Type ${key}` },
      ...keyed(key),
    });
    expectError(otherPath, 422);
    const retry = await owner.post('/api/croptype/croptype', {
      json: { name: `Type ${key}` },
      ...keyed(key),
    });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  });

  it('does nothing more without the header', async () => {
    const json = { name: `Unkeyed ${randomUUID()}`, code: 'U' };
    const keptBefore = (await keyRows(farm.id)).length;
    for (let i = 0; i < 2; i++) {
      const res = await owner.post(CROPS, { json });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('idempotent-replayed'), null);
    }
    assert.equal(await cropsNamed(json.name), 2);
    assert.equal((await keyRows(farm.id)).length, keptBefore, 'no key kept');
  });

  it('lets one of many concurrent requests run: the others are busy (409) or replayed', async () => {
    const key = randomUUID();
    const json = { name: `Concurrent ${key}`, code: 'C' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => owner.post(CROPS, { json, ...keyed(key) })),
    );
    const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    assert.equal(ran.length, 1, answers.map((a) => a.status).join(','));
    for (const a of answers) {
      if (a.status === 409) {
        expectError(a, 409);
        assert.equal(a.headers.get('retry-after'), '1');
        assert.match(a.body[0].meta.message, /still running/);
      } else {
        assert.equal(a.status, 201);
        assert.equal(a.headers.get('location'), ran[0]?.headers.get('location'));
      }
    }
    assert.equal(await cropsNamed(json.name), 1);
  });

  it('is busy (409, Retry-After) while a claim runs, and takes over a claim left by a dead process', async () => {
    // A first request gives the hash of the request; a dead process left the same request claimed.
    const json = { name: `Abandoned ${randomUUID()}`, code: 'A' };
    const probe = randomUUID();
    assert.equal((await owner.post(CROPS, { json, ...keyed(probe) })).status, 201);
    const probed = (await keyRows(farm.id)).find((r) => r.idempotency_key === probe);
    assert.ok(probed);
    const key = randomUUID();
    const planted = await claimIdempotencyKey(
      { db: t.database.db, tenantId: farm.id },
      { key, requestHash: probed.request_hash, now: t.clock.now(), ttlMs: DAY_MS, takeoverMs: 60_000 },
    );
    assert.equal(planted.kind, 'claimed');
    const busy = await owner.post(CROPS, { json, ...keyed(key) });
    expectError(busy, 409);
    assert.equal(busy.headers.get('retry-after'), '1');
    t.clock.advance(60_000);
    const taken = await owner.post(CROPS, { json, ...keyed(key) });
    assert.equal(taken.status, 201, taken.text);
    assert.equal(taken.headers.get('idempotent-replayed'), null);
    assert.equal(await cropsNamed(json.name), 2, 'the probe and the request that took the key over');
  });

  it('keeps a 4xx of the service, but not a body refused by validation', async () => {
    const key = randomUUID();
    const missing = { name: `Bad ref ${key}`, code: 'B', crop_type: 999_999 };
    const refused = await owner.post(CROPS, { json: missing, ...keyed(key) });
    expectError(refused, 422);
    const replayed = await owner.post(CROPS, { json: missing, ...keyed(key) });
    assert.equal(replayed.status, 422);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.equal(replayed.text, refused.text);

    const fixedKey = randomUUID();
    const invalid = await owner.post(CROPS, { json: { code: 'no name' }, ...keyed(fixedKey) });
    expectError(invalid, 422);
    const fixed = await owner.post(CROPS, { json: { name: `Fixed ${fixedKey}` }, ...keyed(fixedKey) });
    assert.equal(fixed.status, 201, 'the key was not used by the invalid body');
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });

  it('does not keep a 500: the database refused the write, and a retry runs again', async () => {
    const refuse =
      database.dialect === 'postgres'
        ? [
            sql`create function refuse_crop_types() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`,
            sql`create trigger refuse_crop_types before insert on crop_types for each row execute function refuse_crop_types()`,
          ]
        : [
            sql`create trigger refuse_crop_types before insert on crop_types begin select raise(abort, 'refused'); end`,
          ];
    for (const statement of refuse) await statement.execute(t.database.db);
    const key = randomUUID();
    const json = { name: `Refused ${key}` };
    try {
      const failed = await owner.post('/api/croptype/croptype', { json, ...keyed(key) });
      expectError(failed, 500);
    } finally {
      await sql`drop trigger refuse_crop_types${database.dialect === 'postgres' ? sql` on crop_types` : sql``}`.execute(
        t.database.db,
      );
    }
    assert.equal((await keyRows(farm.id)).filter((r) => r.idempotency_key === key).length, 0, 'released');
    const retry = await owner.post('/api/croptype/croptype', { json, ...keyed(key) });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
  });

  it('does not keep a 503: the connection was ended while the insert waited, and a retry runs again', async (ctx) => {
    if (database.dialect !== 'postgres')
      return ctx.skip('PostgreSQL: an administrator ends a waiting session');
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    const key = randomUUID();
    const json = { name: `Unavailable ${key}`, code: 'U' };
    try {
      await locker.query('begin');
      await locker.query('lock table crops in access exclusive mode');
      const pending = owner.post(CROPS, { json, ...keyed(key) });
      let waiting: number | undefined;
      for (let i = 0; i < 200 && waiting === undefined; i++) {
        // Inside a transaction the activity view is a snapshot: clear it for each look.
        await locker.query('select pg_stat_clear_snapshot()');
        const found = await locker.query(
          `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
             and wait_event_type = 'Lock' and query ilike '%"crops"%'`,
        );
        waiting = found.rows[0]?.pid;
        if (waiting === undefined) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(waiting, 'the insert waits for the lock');
      await locker.query('select pg_terminate_backend($1)', [waiting]);
      const unavailable = await pending;
      expectError(unavailable, 503);
      assert.ok(unavailable.headers.get('retry-after'));
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
    }
    const retry = await owner.post(CROPS, { json, ...keyed(key) });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
    assert.equal(await cropsNamed(json.name), 1);
  });

  it('keeps each tenant its own keys', async () => {
    const key = randomUUID();
    const json = { name: `Shared key ${key}`, code: 'S' };
    const mine = await owner.post(CROPS, { json, ...keyed(key) });
    const theirs = await other.post(CROPS, { json, ...keyed(key) });
    assert.equal(mine.status, 201);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    assert.notEqual(theirs.headers.get('location'), mine.headers.get('location'));
    assert.equal(await cropsNamed(json.name, farm.id), 1);
    assert.equal(await cropsNamed(json.name, neighbour.id), 1);
  });

  it('refuses a bad header with a 422 naming it, and stores answers encrypted', async () => {
    const json = { name: `Header ${randomUUID()}` };
    for (const bad of ['', 'x'.repeat(256), 'clé', 'tab\there']) {
      const res = await owner.post(CROPS, { json, headers: { 'idempotency-key': bad } });
      expectError(res, 422);
      assert.equal(res.body[0].meta.errors?.[0]?.field, 'Idempotency-Key', JSON.stringify(res.body));
      assert.match(res.body[0].meta.errors[0].message, /^Idempotency-Key must be 1 to 255 printable ASCII/);
    }
    assert.equal(await cropsNamed(json.name), 0);
    const longest = 'k'.repeat(255);
    const ok = await owner.post(CROPS, { json, ...keyed(longest) });
    assert.equal(ok.status, 201, ok.text);
    const [row] = (await keyRows(farm.id)).filter((r) => r.idempotency_key === longest);
    assert.ok(row?.answer && !row.answer.includes('Header '), 'the kept body is not readable in the table');

    // An API key is shown once: a retry shows it again, and the table never holds it in clear.
    const key = randomUUID();
    const made = await owner.post('/api/auth/api-keys', {
      json: { name: 'Gateway', role: 'staff' },
      ...keyed(key),
    });
    assert.equal(made.status, 201, made.text);
    const again = await owner.post('/api/auth/api-keys', {
      json: { name: 'Gateway', role: 'staff' },
      ...keyed(key),
    });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.data.key, made.body.data.key);
    const secret = String(made.body.data.key).slice(9);
    assert.ok(!JSON.stringify(await keyRows(farm.id)).includes(secret), 'the API key is not stored in clear');
  });

  it('applies to POSTs of the API only: GET and login ignore it', async () => {
    const key = randomUUID();
    const list = await owner.get(CROPS, keyed(key));
    assert.equal(list.status, 200);
    assert.equal(list.headers.get('idempotent-replayed'), null);
    const body = { tenantcode: farm.code, username: farm.owner.username, password: farm.owner.password };
    const logins = [];
    for (let i = 0; i < 2; i++)
      logins.push(await request(t.url, 'POST', '/api/auth/login', { json: body, ...keyed(key) }));
    assert.equal(logins[1]?.headers.get('idempotent-replayed'), null);
    assert.notEqual(logins[0]?.body.data.token, logins[1]?.body.data.token, 'a retried login signs in again');
    const bad = await request(t.url, 'POST', '/api/auth/login', {
      json: body,
      headers: { 'idempotency-key': '' },
    });
    assert.equal(bad.body.meta.status_code, 0);
  });
  it('keeps a key 24 hours; then it runs again, and expired keys are pruned', async () => {
    const key = randomUUID();
    const json = { name: `Expiring ${key}`, code: 'E' };
    assert.equal((await owner.post(CROPS, { json, ...keyed(key) })).status, 201);
    t.clock.advance(DAY_MS - 1);
    const late = await owner.post(CROPS, { json, ...keyed(key) });
    assert.equal(late.headers.get('idempotent-replayed'), 'true');
    t.clock.advance(1);
    const expired = await owner.post(CROPS, { json, ...keyed(key) });
    assert.equal(expired.status, 201);
    assert.equal(expired.headers.get('idempotent-replayed'), null);
    assert.equal(await cropsNamed(json.name), 2);

    const kept = await keyRows(farm.id);
    assert.ok(kept.length > 1);
    const pruned = await pruneIdempotencyKeys(t.database.db, t.clock.now() + DAY_MS, 2);
    assert.ok(pruned >= kept.length, `pruned ${pruned} of ${kept.length}`);
    assert.equal((await keyRows(farm.id)).length, 0);
  });

  it('is pruned by the worker service once expired', async () => {
    const key = randomUUID();
    assert.equal((await owner.post(CROPS, { json: { name: `Pruned ${key}` }, ...keyed(key) })).status, 201);
    const logged: string[] = [];
    const log = (_: unknown, msg: string) => logged.push(msg);
    const pruning = createIdempotencyPruning({
      db: t.database.db,
      clock: t.clock,
      intervalMs: 20,
      logger: { info: log, warn: log, error: log },
    });
    await pruning.start();
    try {
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await keyRows(farm.id)).length, 1, 'not expired yet: kept');
      t.clock.advance(DAY_MS);
      for (let i = 0; i < 100 && (await keyRows(farm.id)).length > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal((await keyRows(farm.id)).length, 0);
      assert.ok(logged.includes('pruned expired idempotency keys'), logged.join('; '));
    } finally {
      await pruning.stop();
    }
  });

  it('documents the header on every authenticated POST of the API, not on login', async () => {
    const document = inlineSchemas((await request(t.url, 'GET', '/openapi.json')).body);
    assert.equal(document.components.parameters.IdempotencyKey.name, 'Idempotency-Key');
    assert.equal(document.components.parameters.IdempotencyKey.in, 'header');
    let keyed = 0;
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      const post = operations.post;
      if (!post || !path.startsWith('/api/')) continue;
      const refs = (post.parameters ?? []).filter(
        (p: { $ref?: string }) => p.$ref === '#/components/parameters/IdempotencyKey',
      );
      if (path === '/api/auth/login') assert.equal(refs.length, 0, path);
      else {
        assert.equal(refs.length, 1, path);
        assert.ok(post.responses['409'] && post.responses['422'], `${path}: 409 and 422 documented`);
        const success = Object.entries<any>(post.responses).find(([status]) => status.startsWith('2'));
        assert.ok(success?.[1].headers?.['Idempotent-Replayed'], `${path}: Idempotent-Replayed documented`);
      }
      keyed += refs.length;
    }
    assert.ok(keyed > 20, `${keyed} POST operations take the header`);
  });
});
