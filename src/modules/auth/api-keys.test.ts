// API keys on both databases: made once and shown once, stored hashed, acting as their owner with
// their own role, listed with their last use, revoked and expired at once, kept inside the tenant,
// and unable to manage keys or the person's account.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, it } from 'node:test';
import { client, request, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { inlineSchemas } from '../../../test/support/openapi.js';
import { assertErrorShape, type Client, invalidFields } from '../../../test/support/resources.js';
import type { ManualClock } from '../../platform/clock.js';

const PATH = '/api/auth/api-keys';

forEachDialect('API keys', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let owner: Client;
  let clock: ManualClock;

  before(async () => {
    t = await startTestApp(database.url);
    clock = t.clock as ManualClock;
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
  });
  after(() => t.close());

  async function makeKey(
    body: Record<string, unknown>,
    by: Client = owner,
  ): Promise<{ id: number; key: string }> {
    const res = await by.post(PATH, { json: body });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  }

  it('is shown once, stored as a hash, and listed without the key', async () => {
    const res = await owner.post(PATH, { json: { name: ' Greenhouse gateway ', role: 'staff' } });
    assert.equal(res.status, 201, res.text);
    const made = res.body.data;
    assert.match(made.key, /^fk_[A-Za-z0-9_-]{43}$/);
    assert.equal(res.headers.get('location'), `${PATH}/${made.id}`);
    assert.deepEqual(
      { ...made, key: undefined, created_at: undefined },
      {
        id: made.id,
        name: 'Greenhouse gateway',
        role: 'staff',
        prefix: made.key.slice(0, 9),
        created_by: farm.owner.id,
        expires_at: null,
        last_used_at: null,
        key: undefined,
        created_at: undefined,
      },
    );
    const rows = await t.database.db.selectFrom('api_keys').selectAll().where('id', '=', made.id).execute();
    assert.equal(rows[0]?.key_hash, createHash('sha256').update(made.key).digest('hex'));
    assert.ok(!JSON.stringify(rows).includes(made.key.slice(9)), 'the key itself is not stored');

    const list = await owner.get(PATH);
    assert.equal(list.status, 200);
    const listed = list.body.find((k: { id: number }) => k.id === made.id);
    assert.equal(listed.name, 'Greenhouse gateway');
    assert.equal('key' in listed, false);
    assert.ok(!list.text.includes(made.key));
    const detail = await owner.get(`${PATH}/${made.id}`);
    assert.equal(detail.status, 200);
    assert.equal('key' in detail.body.data, false);
  });

  it('authenticates as Bearer or ?token=, acts as its owner with its role, and notes its last use', async () => {
    const { id, key } = await makeKey({ name: 'Sensor bridge', role: 'staff' });
    const viaKey = client(t.url, key);
    const me = await viaKey.get('/api/auth/me');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.data.user.id, farm.owner.id);
    assert.equal(me.body.data.user.role, 'staff', 'the key role, not the owner role');
    const viaQuery = await request(t.url, 'GET', `/api/auth/me?token=${key}`);
    assert.equal(viaQuery.status, 200);
    assert.equal((await viaKey.get('/api/crop/crop')).status, 200, 'a staff key reads');
    const refused = await viaKey.post('/api/users', { json: { username: 'x1', password: 'long-enough' } });
    assert.equal(refused.status, 403, 'a staff key is refused what only owners do');

    const used = (await owner.get(`${PATH}/${id}`)).body.data.last_used_at;
    assert.equal(used, new Date(clock.now()).toISOString());
    clock.advance(30_000);
    await viaKey.get('/api/auth/me');
    assert.equal((await owner.get(`${PATH}/${id}`)).body.data.last_used_at, used, 'noted once a minute');
    clock.advance(31_000);
    await viaKey.get('/api/auth/me');
    assert.equal(
      (await owner.get(`${PATH}/${id}`)).body.data.last_used_at,
      new Date(clock.now()).toISOString(),
    );

    const ownerKey = client(t.url, (await makeKey({ name: 'Integration', role: 'owner' })).key);
    const made = await ownerKey.post('/api/users', {
      json: { username: 'made-by-key', password: 'long-enough' },
    });
    assert.equal(made.status, 201, made.text);
  });

  it('cannot manage keys, log out, or change the person it acts for', async () => {
    const viaKey = client(t.url, (await makeKey({ name: 'Full access', role: 'owner' })).key);
    for (const res of [
      await viaKey.get(PATH),
      await viaKey.post(PATH, { json: { name: 'another', role: 'owner' } }),
      await viaKey.post('/api/auth/logout'),
      await viaKey.put('/api/account', { json: { name: 'Taken over' } }),
      await viaKey.post('/api/account/password', {
        json: { current_password: farm.owner.password, new_password: 'taken-over-1' },
      }),
    ]) {
      assert.equal(res.status, 403, res.text);
      assertErrorShape(res.body, 403);
      assert.match(res.body[0].meta.message, /API key/);
    }
    assert.equal((await viaKey.get('/api/account')).status, 200, 'reading the account is fine');
    assert.equal((await viaKey.get('/api/auth/me')).status, 200, 'the key still works');
  });

  it('is for owners only; staff are neither offered the list nor can make one', async () => {
    const worker = await makeUser(t.database.db, farm, 'staff');
    const staff = client(t.url, await loginToken(t.url, farm.code, worker));
    assert.equal((await staff.get(PATH)).status, 403);
    assert.equal((await staff.post(PATH, { json: { name: 'mine', role: 'staff' } })).status, 403);
    assert.equal((await client(t.url).get(PATH)).status, 401);
  });

  it('refuses a bad key request naming the fields', async () => {
    const missing = await owner.post(PATH, { json: {} });
    assert.equal(missing.status, 422);
    assert.deepEqual(invalidFields(missing.body).sort(), ['name', 'role']);
    const blank = await owner.post(PATH, { json: { name: '   ', role: 'owner' } });
    assert.deepEqual(invalidFields(blank.body), ['name']);
    const badRole = await owner.post(PATH, { json: { name: 'x', role: 'admin' } });
    assert.deepEqual(invalidFields(badRole.body), ['role']);
    const past = await owner.post(PATH, {
      json: { name: 'x', role: 'staff', expires_at: new Date(clock.now() - 1000).toISOString() },
    });
    assert.deepEqual(invalidFields(past.body), ['expires_at']);
    assert.match(past.body[0].meta.errors[0].message, /future/);
    const notADate = await owner.post(PATH, { json: { name: 'x', role: 'staff', expires_at: '2026-13-40' } });
    assert.deepEqual(invalidFields(notADate.body), ['expires_at']);
  });

  it('stops working when revoked, when it expires, and when its owner is removed or demoted', async () => {
    const { id, key } = await makeKey({ name: 'Old gateway', role: 'staff' });
    const viaKey = client(t.url, key);
    assert.equal((await viaKey.get('/api/auth/me')).status, 200);
    const revoked = await owner.delete(`${PATH}/${id}`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await viaKey.get('/api/auth/me')).status, 401);
    assert.equal((await owner.get(`${PATH}/${id}`)).status, 404);
    assert.equal((await owner.delete(`${PATH}/${id}`)).status, 404);
    assert.ok(!(await owner.get(PATH)).body.some((k: { id: number }) => k.id === id));

    const expiring = await makeKey({
      name: 'Trial',
      role: 'staff',
      expires_at: new Date(clock.now() + 60 * 60_000).toISOString(),
    });
    const trial = client(t.url, expiring.key);
    assert.equal((await trial.get('/api/auth/me')).status, 200);
    clock.advance(60 * 60_000);
    assert.equal((await trial.get('/api/auth/me')).status, 401, 'expired');
    const listed = (await owner.get(PATH)).body.find((k: { id: number }) => k.id === expiring.id);
    assert.ok(listed.expires_at, 'an expired key stays listed with its expiry');

    const second = await makeUser(t.database.db, farm, 'owner');
    const secondOwner = client(t.url, await loginToken(t.url, farm.code, second));
    const theirs = client(t.url, (await makeKey({ name: 'Theirs', role: 'owner' }, secondOwner)).key);
    assert.equal((await theirs.get('/api/users')).status, 200);
    assert.equal((await owner.put(`/api/users/${second.id}`, { json: { role: 'staff' } })).status, 200);
    const demoted = await theirs.post('/api/users', { json: { username: 'x2', password: 'long-enough' } });
    assert.equal(demoted.status, 403, 'never more than its owner has now');
    assert.equal((await owner.delete(`/api/users/${second.id}`)).status, 200);
    assert.equal((await theirs.get('/api/auth/me')).status, 401, 'its owner was removed');
  });

  it("stays inside its tenant: another farm neither sees nor revokes it, and it reads only its farm's records", async () => {
    const other = await makeTenant(t.database.db);
    const otherOwner = client(t.url, await loginToken(t.url, other.code, other.owner));
    const { id, key } = await makeKey({ name: 'Ours', role: 'owner' });
    assert.equal((await otherOwner.get(`${PATH}/${id}`)).status, 404);
    assert.equal((await otherOwner.delete(`${PATH}/${id}`)).status, 404);
    assert.ok(!(await otherOwner.get(PATH)).body.some((k: { id: number }) => k.id === id));
    const theirCrop = await otherOwner.post('/api/crop/crop', { json: { name: 'Their rice' } });
    assert.equal(theirCrop.status, 201, theirCrop.text);
    const cropId = theirCrop.body[0]?.id ?? theirCrop.body.data?.id;
    assert.equal((await client(t.url, key).get(`/api/crop/crop/${cropId}`)).status, 404);
    assert.equal((await client(t.url, key).get('/api/auth/me')).body.data.tenant.code, farm.code);
  });

  it('is documented in the OpenAPI description', async () => {
    const doc = inlineSchemas((await request(t.url, 'GET', '/openapi.json')).body);
    assert.ok(doc.paths[PATH].get);
    assert.ok(doc.paths[PATH].post.requestBody);
    assert.ok(doc.paths[`${PATH}/{id}`].delete);
  });
});
