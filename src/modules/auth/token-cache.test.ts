// The token cache is told of changes to tokens, users and tenants by the code that makes them,
// whatever the form of the write: an upsert (insert ... on conflict do update) is seen like an
// update. On PostgreSQL the change is also heard by NOTIFY (db/postgres-changes.test.ts has the
// other processes and a lost LISTEN connection).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { PostgresChanges } from '../../platform/db/postgres-changes.js';
import { sha256Hex } from '../../platform/ids.js';
import { resolveToken } from './auth.service.js';
import { authChanged, TokenCache } from './token-cache.js';

forEachDialect('token cache', (database) => {
  let t: TestApp;
  let farm: TestTenant;

  before(async () => {
    t = await startTestApp(database.url);
    farm = await makeTenant(t.database.db);
  });
  after(() => t.close());

  const me = (token: string) => client(t.url, token).get('/api/auth/me');

  it('refuses a token revoked by an upsert of access_tokens', async () => {
    const staff = await makeUser(t.database.db, farm, 'staff');
    const token = await loginToken(t.url, farm.code, staff);
    const kept = await loginToken(t.url, farm.code, farm.owner);
    assert.equal((await me(token)).status, 200);
    assert.equal((await me(kept)).status, 200);
    const now = t.clock.now();
    await t.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('access_tokens')
        .values({
          tenant_id: farm.id,
          user_id: staff.id,
          token_hash: sha256Hex(token),
          language: null,
          created_at: now,
          expires_at: now + 60_000,
          revoked_at: null,
        })
        .onConflict((oc) => oc.column('token_hash').doUpdateSet({ revoked_at: now }))
        .execute();
      await authChanged(trx);
    });
    assert.equal((await me(token)).status, 401);
    assert.equal((await me(kept)).status, 200);
  });

  it('applies a role given by an upsert of users to a token already in use', async () => {
    const staff = await makeUser(t.database.db, farm, 'staff');
    const token = await loginToken(t.url, farm.code, staff);
    assert.equal((await client(t.url, token).get('/api/webhooks')).status, 403);
    const now = t.clock.now();
    await t.database.db
      .insertInto('users')
      .values({
        tenant_id: farm.id,
        username: staff.username,
        password_hash: 'unused',
        name: '',
        firstname: '',
        lastname: '',
        picture: null,
        role: 'owner',
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'username']).doUpdateSet({ role: 'owner', updated_at: now }),
      )
      .execute();
    await authChanged(t.database.db);
    assert.equal((await client(t.url, token).get('/api/webhooks')).status, 200);
    assert.equal((await me(token)).body.data.user.role, 'owner');
  });

  it('answers the tenant name given by an upsert of tenants', async () => {
    const token = await loginToken(t.url, farm.code, farm.owner);
    assert.equal((await me(token)).body.data.tenant.name, `Farm ${farm.code}`);
    const now = t.clock.now();
    await t.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('tenants')
        .values({ code: farm.code, name: 'Renamed farm', created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('code').doUpdateSet({ name: 'Renamed farm', updated_at: now }))
        .execute();
      await authChanged(trx);
    });
    assert.equal((await me(token)).body.data.tenant.name, 'Renamed farm');
  });

  it('refuses a token at once after a logout, a new password or a removed user', async () => {
    const owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));

    const leaving = await loginToken(t.url, farm.code, farm.owner);
    assert.equal((await me(leaving)).status, 200);
    assert.equal((await client(t.url, leaving).post('/api/auth/logout')).status, 200);
    assert.equal((await me(leaving)).status, 401);

    const staff = await makeUser(t.database.db, farm, 'staff');
    const before = await loginToken(t.url, farm.code, staff);
    assert.equal((await me(before)).status, 200);
    const password = 'a-new-password';
    assert.equal((await owner.put(`/api/users/${staff.id}`, { json: { password } })).status, 200);
    assert.equal((await me(before)).status, 401);

    const after = await loginToken(t.url, farm.code, { username: staff.username, password });
    assert.equal((await me(after)).status, 200);
    assert.equal((await owner.put(`/api/users/${staff.id}`, { json: { name: 'Renamed' } })).status, 200);
    assert.equal((await me(after)).body.data.user.name, 'Renamed');
    assert.equal((await owner.delete(`/api/users/${staff.id}`)).status, 200);
    assert.equal((await me(after)).status, 401);
  });
  it('answers a token known here at once, without a promise, and reads or notes a key with one', async () => {
    const { changes } = t.database;
    // On PostgreSQL nothing is cached until the process listens for changes (its first version()
    // starts it): wait for it, so that the first read below is kept.
    if (changes instanceof PostgresChanges) {
      changes.start();
      for (let i = 0; !changes.isListening; i++) {
        assert.ok(i < 200, 'not listening after 10 s');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const cache = new TokenCache(changes);
    const deps = { db: t.database.db, clock: t.clock, tokenCache: cache };
    const token = await loginToken(t.url, farm.code, farm.owner);
    // First seen here: read from the database.
    const first = resolveToken(deps, token);
    assert.ok(first instanceof Promise);
    const read = await first;
    assert.equal(read?.user.id, farm.owner.id);
    // Known, and nothing of it changed: the same context, synchronously (the auth hook then ends in
    // the request's own turn).
    const known = resolveToken(deps, token);
    assert.ok(!(known instanceof Promise));
    assert.equal(known, read);
    // A change to the auth rows: read again.
    await authChanged(t.database.db);
    const changed = resolveToken(deps, token);
    assert.ok(changed instanceof Promise);
    assert.equal((await changed)?.user.id, farm.owner.id);
    assert.equal(await resolveToken(deps, 'not-a-token'), null);

    // An API key: known here too, but its use is noted (a write) at most once a minute, with a promise.
    const created = await client(t.url, token).post('/api/auth/api-keys', {
      json: { name: 'gateway', role: 'staff' },
    });
    assert.equal(created.status, 201, created.text);
    const key: string = created.body.data.key;
    const byKey = await resolveToken(deps, key);
    assert.ok(byKey?.apiKey);
    const usedAt = byKey.apiKey.lastUsedAt;
    assert.equal(usedAt, t.clock.now());
    assert.ok(!(resolveToken(deps, key) instanceof Promise));
    t.clock.advance(60_000);
    const due = resolveToken(deps, key);
    assert.ok(due instanceof Promise);
    assert.equal((await due)?.apiKey?.lastUsedAt, t.clock.now());
    const row = await t.database.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', created.body.data.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.last_used_at), t.clock.now());
  });
});
