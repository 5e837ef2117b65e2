import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, request, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { inlineSchemas } from '../../../test/support/openapi.js';
import { assertErrorShape, type Client, invalidFields } from '../../../test/support/resources.js';

forEachDialect('own account', (database) => {
  let t: TestApp;
  let tenant: TestTenant;
  let owner: Client;

  before(async () => {
    t = await startTestApp(database.url);
    tenant = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, tenant.code, tenant.owner));
  });
  after(() => t.close());

  it('needs a token', async () => {
    const anonymous = client(t.url);
    for (const res of [
      await anonymous.get('/api/account'),
      await anonymous.put('/api/account', { json: { name: 'x' } }),
      await anonymous.post('/api/account/password', { json: { current_password: 'a', new_password: 'b' } }),
    ]) {
      assert.equal(res.status, 401);
      assertErrorShape(res.body, 401);
    }
  });

  it('every role reads and changes its own name, language and e-mail', async () => {
    const worker = await makeUser(t.database.db, tenant, 'staff');
    const staff = client(t.url, await loginToken(t.url, tenant.code, worker));
    const read = await staff.get('/api/account');
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, {
      data: {
        id: worker.id,
        username: worker.username,
        name: worker.username,
        role: 'staff',
        language: null,
        email: null,
      },
    });
    const changed = await staff.put('/api/account', {
      json: {
        name: ' Binh Le ',
        language: 'vi',
        email: 'binh@farm.example',
        role: 'owner',
        username: 'boss',
      },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.data, {
      id: worker.id,
      username: worker.username,
      name: 'Binh Le',
      role: 'staff',
      language: 'vi',
      email: 'binh@farm.example',
    });
    const cleared = await staff.put('/api/account', { json: { language: null, email: null } });
    assert.equal(cleared.body.data.language, null);
    assert.equal(cleared.body.data.email, null);
    assert.equal(cleared.body.data.name, 'Binh Le');
    assert.equal((await owner.get('/api/account')).body.data.id, tenant.owner.id);
  });

  it('refuses a bad language, a bad or taken e-mail and an empty name, naming every field', async () => {
    await owner.put('/api/account', { json: { email: 'owner@farm.example' } });
    const bad = await owner.put('/api/account', { json: { language: 'fr', email: 'owner@', name: '' } });
    assert.equal(bad.status, 422);
    assert.deepEqual(invalidFields(bad.body), ['email', 'language', 'name']);
    const worker = await makeUser(t.database.db, tenant, 'staff');
    const staff = client(t.url, await loginToken(t.url, tenant.code, worker));
    const taken = await staff.put('/api/account', { json: { email: 'OWNER@farm.example' } });
    assert.deepEqual(invalidFields(taken.body), ['email']);
    // Another tenant's users do not collide.
    const other = await makeTenant(t.database.db);
    const otherOwner = client(t.url, await loginToken(t.url, other.code, other.owner));
    const elsewhere = await otherOwner.put('/api/account', { json: { email: 'owner@farm.example' } });
    assert.equal(elsewhere.status, 200, elsewhere.text);
    assert.equal(elsewhere.body.data.id, other.owner.id);
    assert.equal((await owner.get('/api/account')).body.data.email, 'owner@farm.example');
  });

  it('changes the password with the current one; other sessions end, this one goes on', async () => {
    const worker = await makeUser(t.database.db, tenant, 'staff');
    const current = await loginToken(t.url, tenant.code, worker);
    const elsewhere = await loginToken(t.url, tenant.code, worker);
    const ownerToken = await loginToken(t.url, tenant.code, tenant.owner);
    const me = client(t.url, current);
    // Both tokens are in use (and cached where the app caches tokens).
    assert.equal((await request(t.url, 'GET', '/api/account', { token: elsewhere })).status, 200);
    assert.equal((await me.get('/api/account')).status, 200);

    const wrong = await me.post('/api/account/password', {
      json: { current_password: 'not-it', new_password: 'short' },
    });
    assert.deepEqual(invalidFields(wrong.body), ['current_password', 'new_password']);
    const missing = await me.post('/api/account/password', { json: {} });
    assert.deepEqual(invalidFields(missing.body), ['current_password', 'new_password']);
    assert.equal((await request(t.url, 'GET', '/api/account', { token: elsewhere })).status, 200);

    const ok = await me.post('/api/account/password', {
      json: { current_password: worker.password, new_password: 'a-new-password' },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.meta.status_code, 0);
    assert.equal((await me.get('/api/account')).status, 200, 'the session that changed it goes on');
    assert.equal((await request(t.url, 'GET', '/api/account', { token: elsewhere })).status, 401);
    assert.equal(
      (await request(t.url, 'GET', '/api/account', { token: ownerToken })).status,
      200,
      "another user's sessions are untouched",
    );
    const oldLogin = await request(t.url, 'POST', '/api/auth/login', {
      json: { tenantcode: tenant.code, username: worker.username, password: worker.password },
    });
    assert.equal(oldLogin.body.meta.status_code, 1);
    await loginToken(t.url, tenant.code, { username: worker.username, password: 'a-new-password' });
  });

  it("answers in the user's own language when the request names none", async () => {
    const person = await makeUser(t.database.db, tenant, 'staff');
    const token = await loginToken(t.url, tenant.code, person);
    const notFound = (headers: Record<string, string> = {}, withToken = token) =>
      request(t.url, 'GET', '/api/crop/crop/999999', { token: withToken, headers });
    const englishMessage = (await notFound()).body[0].meta.message;
    const set = await request(t.url, 'PUT', '/api/account', { token, json: { language: 'vi' } });
    assert.equal(set.status, 200, set.text);

    const vietnamese = (await notFound()).body[0].meta.message;
    assert.notEqual(vietnamese, englishMessage, 'no Accept-Language: the account language (vi)');
    assert.equal((await notFound({ 'accept-language': 'vi' })).body[0].meta.message, vietnamese);
    assert.equal(
      (await notFound({ 'accept-language': 'en-GB,en;q=0.9' })).body[0].meta.message,
      englishMessage,
      'a language the request names wins over the account',
    );
    assert.equal(
      (await notFound({ 'accept-language': 'fr' })).body[0].meta.message,
      vietnamese,
      'a language Furrow does not speak falls back to the account',
    );
    const pinned = await request(t.url, 'POST', '/api/auth/login', {
      json: { tenantcode: tenant.code, username: person.username, password: person.password, language: 'en' },
    });
    assert.equal(
      (await notFound({}, pinned.body.data.token)).body[0].meta.message,
      englishMessage,
      "the login's language wins over the account",
    );
    await request(t.url, 'PUT', '/api/account', { token, json: { language: null } });
    assert.equal((await notFound()).body[0].meta.message, englishMessage, 'cleared: English');
  });

  it('is documented in the OpenAPI description', async () => {
    const doc = inlineSchemas((await request(t.url, 'GET', '/openapi.json')).body);
    assert.ok(doc.paths['/api/account'].get);
    assert.ok(doc.paths['/api/account'].put.requestBody);
    assert.ok(doc.paths['/api/account/password'].post.requestBody);
  });
});
