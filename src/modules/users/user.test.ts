import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, request, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import {
  assertErrorShape,
  type Client,
  FIELDS,
  invalidFields,
  keys,
} from '../../../test/support/resources.js';

forEachDialect('users resource', (database) => {
  let t: TestApp;
  let tenant: TestTenant;
  let owner: Client;
  let staff: Client;
  let staffId: number;

  before(async () => {
    t = await startTestApp(database.url);
    tenant = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, tenant.code, tenant.owner));
    const worker = await makeUser(t.database.db, tenant, 'staff');
    staffId = worker.id;
    staff = client(t.url, await loginToken(t.url, tenant.code, worker));
  });
  after(() => t.close());

  it('everyone in the tenant lists and reads users; no password hash ever leaves', async () => {
    const list = await staff.get('/api/users');
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 2);
    // Staff see no e-mail addresses; owners do.
    const staffFields = FIELDS.user.filter((field) => field !== 'email');
    for (const user of list.body) assert.deepEqual(keys(user), staffFields);
    assert.doesNotMatch(list.text, /argon2|password/);
    const one = await staff.get(`/api/users/${tenant.owner.id}`);
    assert.equal(one.body[0].role, 'owner');
  });

  it('staff get 403 in the error shape for create, update and delete', async () => {
    const create = await staff.post('/api/users', { json: { username: 'x1', password: 'long-enough' } });
    assert.equal(create.status, 403);
    assertErrorShape(create.body, 403);
    assert.equal((await staff.put(`/api/users/${staffId}`, { json: { firstname: 'x' } })).status, 403);
    assert.equal((await staff.delete(`/api/users/${tenant.owner.id}`)).status, 403);
    // The role decides before the body is looked at.
    assert.equal((await staff.post('/api/users', { json: { role: 'king' } })).status, 403);
  });

  it('owners create users who log in, change passwords, and delete users (who then cannot log in)', async () => {
    const created = await owner.post('/api/users', {
      json: { username: 'Lan.Nguyen', password: 'first-password', firstname: 'Lan', lastname: 'Nguyen' },
    });
    assert.equal(created.status, 201, created.text);
    const [user] = created.body;
    assert.deepEqual(user, {
      id: user.id,
      name: 'Lan Nguyen',
      firstname: 'Lan',
      lastname: 'Nguyen',
      picture: null,
      username: 'lan.nguyen',
      role: 'staff',
      language: null,
      email: null,
    });
    const oldToken = await loginToken(t.url, tenant.code, {
      username: 'lan.nguyen',
      password: 'first-password',
    });
    await owner.put(`/api/users/${user.id}`, { json: { name: 'Lan N.' } });
    assert.equal((await request(t.url, 'GET', '/api/auth/me', { token: oldToken })).status, 200);
    await owner.put(`/api/users/${user.id}`, { json: { password: 'second-password', role: 'owner' } });
    // A new password ends the sessions opened with the old one.
    assert.equal((await request(t.url, 'GET', '/api/auth/me', { token: oldToken })).status, 401);
    const token = await loginToken(t.url, tenant.code, {
      username: 'lan.nguyen',
      password: 'second-password',
    });
    const deleted = await owner.delete(`/api/users/${user.id}`);
    assert.equal(deleted.status, 200);
    assert.equal((await request(t.url, 'GET', '/api/auth/me', { token })).status, 401);
    const login = await request(t.url, 'POST', '/api/auth/login', {
      json: { tenantcode: tenant.code, username: 'lan.nguyen', password: 'second-password' },
    });
    assert.equal(login.body.meta.status_code, 1);
    // The username is free again.
    const again = await owner.post('/api/users', {
      json: { username: 'lan.nguyen', password: 'third-password' },
    });
    assert.equal(again.status, 201);
  });

  it('refuses a taken username, a short password, and changing or deleting oneself', async () => {
    const taken = await owner.post('/api/users', { json: { username: 'OWNER', password: 'long-enough' } });
    assert.deepEqual(invalidFields(taken.body), ['username']);
    const short = await owner.post('/api/users', { json: { username: 'newbie', password: 'short' } });
    assert.deepEqual(invalidFields(short.body), ['password']);
    const demote = await owner.put(`/api/users/${tenant.owner.id}`, { json: { role: 'staff' } });
    assert.equal(demote.status, 409);
    assertErrorShape(demote.body, 409);
    assert.equal((await owner.delete(`/api/users/${tenant.owner.id}`)).status, 409);
  });

  it('owners set language and e-mail (unique in the tenant whatever its case, format checked); staff do not see e-mails', async () => {
    const created = await owner.post('/api/users', {
      json: { username: 'mai', password: 'long-enough', language: 'vi', email: ' Mai@Farm.example ' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body[0].language, 'vi');
    assert.equal(created.body[0].email, 'Mai@Farm.example');
    const seenByStaff = (await staff.get(`/api/users/${created.body[0].id}`)).body[0];
    assert.equal(seenByStaff.language, 'vi');
    assert.equal('email' in seenByStaff, false);
    const taken = await owner.post('/api/users', {
      json: { username: 'mai2', password: 'long-enough', email: 'mai@farm.EXAMPLE' },
    });
    assert.deepEqual(invalidFields(taken.body), ['email']);
    const bad = await owner.post('/api/users', {
      json: { username: 'mai3', password: 'long-enough', email: 'not an address', language: 'fr' },
    });
    assert.deepEqual(invalidFields(bad.body), ['email', 'language']);
    const badEmail = await owner.post('/api/users', {
      json: { username: 'mai3', password: 'long-enough', email: 'mai@farm' },
    });
    assert.deepEqual(invalidFields(badEmail.body), ['email']);
    const cleared = await owner.put(`/api/users/${created.body[0].id}`, {
      json: { email: null, language: null },
      headers: { prefer: 'return=representation' },
    });
    assert.equal(cleared.body[0].email, null);
    assert.equal(cleared.body[0].language, null);
    // Another tenant may use the same address.
    const other = await makeTenant(t.database.db);
    const otherOwner = client(t.url, await loginToken(t.url, other.code, other.owner));
    const elsewhere = await otherOwner.post('/api/users', {
      json: { username: 'mai', password: 'long-enough', email: 'mai@farm.example' },
    });
    assert.equal(elsewhere.status, 201);
    const again = await owner.post('/api/users', {
      json: { username: 'mai4', password: 'long-enough', email: 'MAI@farm.example' },
    });
    assert.equal(again.status, 201, 'the cleared address is free again');
  });
});
