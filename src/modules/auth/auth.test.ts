import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, request, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { openDatabase } from '../../platform/db/database.js';
import { sha256Hex } from '../../platform/ids.js';
import { authChanged } from './token-cache.js';

const TOKEN_ERROR = [
  { meta: { message: 'Token has expired or is invalid', status_code: 401, code: 'token_invalid' }, data: [] },
];
const BAD_CREDENTIALS = { meta: { status_code: 1, message: 'The account or password is incorrect' } };

forEachDialect('auth', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let other: TestTenant;
  const login = (body: unknown, headers: Record<string, string> = {}) =>
    request(t.url, 'POST', '/api/auth/login', { json: body, headers });

  before(async () => {
    // X-Forwarded-For stands for the client addresses of the login limits.
    t = await startTestApp(database.url, { env: { TOKEN_TTL_SECONDS: '600', TRUST_PROXY: 'true' } });
    farm = await makeTenant(t.database.db);
    other = await makeTenant(t.database.db);
  });
  after(() => t.close());

  it('logs in and answers the token, user and tenant', async () => {
    const res = await login({ tenantcode: farm.code, username: 'owner', password: farm.owner.password });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.meta, { status_code: 0, message: 'Logged in successfully' });
    const data = res.body.data;
    assert.match(data.token, /^[\w-]{43}$/);
    assert.equal(data.access_token, data.token);
    assert.equal(data.token_type, 'Bearer');
    assert.equal(data.expires_in, 600);
    assert.equal(data.expires_at, new Date(t.clock.now() + 600_000).toISOString());
    assert.deepEqual(data.user, {
      id: farm.owner.id,
      username: 'owner',
      name: 'Ana Tran',
      firstname: 'Ana',
      lastname: 'Tran',
      picture: null,
      role: 'owner',
      // What the original service's mobile clients read, empty or derived.
      email: '',
      tel: '',
      roles: [{ slug: 'owner', name: 'Owner' }],
      permissions: data.user.permissions,
      isAdmin: true,
      sys_message: '',
    });
    const slugs = data.user.permissions.map((p: { slug: string }) => p.slug);
    assert.ok(slugs.includes('users.manage') && slugs.includes('harvest.confirm'));
    assert.deepEqual(data.tenant, { code: farm.code, name: `Farm ${farm.code}` });
  });

  it("answers a staff member's login with their e-mail, role and what they may do", async () => {
    const worker = await makeUser(t.database.db, farm, 'staff');
    const staff = client(t.url, await loginToken(t.url, farm.code, worker));
    assert.equal((await staff.put('/api/account', { json: { email: 'binh@farm.example' } })).status, 200);
    const res = await login({ tenantcode: farm.code, username: worker.username, password: worker.password });
    const user = res.body.data.user;
    assert.equal(user.email, 'binh@farm.example');
    assert.deepEqual(user.roles, [{ slug: 'staff', name: 'Staff' }]);
    assert.equal(user.isAdmin, false);
    const slugs = user.permissions.map((p: { slug: string }) => p.slug);
    assert.ok(slugs.includes('harvest.declare'));
    assert.ok(!slugs.includes('users.manage') && !slugs.includes('harvest.confirm'));
  });

  it('stores only a hash of the token', async () => {
    const token = await loginToken(t.url, farm.code, farm.owner);
    const rows = await t.database.db.selectFrom('access_tokens').select('token_hash').execute();
    assert.ok(rows.length > 0);
    assert.ok(rows.every((r) => r.token_hash !== token && /^[0-9a-f]{64}$/.test(r.token_hash)));
  });

  it('answers an unknown tenant, an unknown user and a wrong password identically', async () => {
    const answers = await Promise.all([
      login({ tenantcode: 'no-such-farm', username: 'owner', password: farm.owner.password }),
      login({ tenantcode: farm.code, username: 'nobody', password: farm.owner.password }),
      login({ tenantcode: farm.code, username: 'owner', password: 'wrong-password' }),
      login({ tenantcode: other.code, username: 'owner', password: farm.owner.password }),
    ]);
    for (const res of answers) {
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, BAD_CREDENTIALS);
    }
    assert.equal(new Set(answers.map((a) => a.text)).size, 1);
  });

  it('accepts tenant code and username in any case', async () => {
    const res = await login({
      tenantcode: farm.code.toUpperCase(),
      username: 'OWNER',
      password: farm.owner.password,
    });
    assert.equal(res.body.meta.status_code, 0);
  });

  it('accepts a form-encoded login with extra fields', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', {
      form: new URLSearchParams({
        tenantcode: farm.code,
        username: 'owner',
        password: farm.owner.password,
        language: 'en',
        device: 'android',
      }).toString(),
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.status_code, 0);
  });

  it('answers in Vietnamese when the login asks for vi, and keeps it for the token', async () => {
    const bad = await login({ tenantcode: farm.code, username: 'owner', password: 'nope', language: 'vi' });
    assert.deepEqual(bad.body, { meta: { status_code: 1, message: 'Tài khoản hoặc mật khẩu không đúng' } });
    const ok = await login({
      tenantcode: farm.code,
      username: 'owner',
      password: farm.owner.password,
      language: 'vi',
    });
    assert.equal(ok.body.meta.message, 'Đăng nhập thành công');
    const notFound = await client(t.url, ok.body.data.token).get('/api/no-such-thing');
    assert.equal(notFound.status, 404);
    const logout = await client(t.url, ok.body.data.token).post('/api/auth/logout');
    assert.equal(logout.body.meta.message, 'Đăng xuất thành công');
  });

  it('answers in Vietnamese when Accept-Language prefers vi', async () => {
    const res = await request(t.url, 'GET', '/api/auth/me', {
      headers: { 'accept-language': 'vi-VN,vi;q=0.9,en;q=0.5' },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body[0].meta.message, 'Token đã hết hạn hoặc không hợp lệ');
  });

  it('rejects a login without its fields with a 422 listing each', async () => {
    const res = await login({ username: 'owner' });
    assert.equal(res.status, 422);
    assert.equal(res.body[0].meta.status_code, 422);
    assert.deepEqual(
      res.body[0].meta.errors.map((e: { field: string }) => e.field),
      ['tenantcode', 'password'],
    );
    assert.deepEqual(res.body[0].data, []);
  });

  it('takes the token as a Bearer header or as ?token=', async () => {
    const token = await loginToken(t.url, farm.code, farm.owner);
    const viaHeader = await client(t.url, token).get('/api/auth/me');
    assert.equal(viaHeader.status, 200);
    assert.equal(viaHeader.body.data.user.username, 'owner');
    assert.equal(viaHeader.body.data.tenant.code, farm.code);
    const viaQuery = await request(t.url, 'GET', `/api/auth/me?token=${encodeURIComponent(token)}`);
    assert.equal(viaQuery.status, 200);
    assert.deepEqual(viaQuery.body, viaHeader.body);
  });

  it('answers 401 in the array shape for a missing, malformed or unknown token', async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Bearer nope' },
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
    ];
    for (const headers of variants) {
      const res = await request(t.url, 'GET', '/api/auth/me', { headers });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, TOKEN_ERROR);
    }
    const viaQuery = await request(t.url, 'GET', '/api/auth/me?token=unknown');
    assert.equal(viaQuery.status, 401);
    assert.deepEqual(viaQuery.body, TOKEN_ERROR);
  });

  it('expires tokens after TOKEN_TTL_SECONDS', async () => {
    const token = await loginToken(t.url, farm.code, farm.owner);
    t.clock.advance(599_000);
    assert.equal((await client(t.url, token).get('/api/auth/me')).status, 200);
    t.clock.advance(1_000);
    const expired = await client(t.url, token).get('/api/auth/me');
    assert.equal(expired.status, 401);
    assert.deepEqual(expired.body, TOKEN_ERROR);
  });

  it('revokes the token on logout, and only that token', async () => {
    const first = await loginToken(t.url, farm.code, farm.owner);
    const second = await loginToken(t.url, farm.code, farm.owner);
    const res = await client(t.url, first).post('/api/auth/logout');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { meta: { status_code: 0, message: 'Logged out successfully' } });
    assert.equal((await client(t.url, first).get('/api/auth/me')).status, 401);
    assert.equal((await client(t.url, second).get('/api/auth/me')).status, 200);
  });

  it('tells staff from owners', async () => {
    const staff = await makeUser(t.database.db, farm, 'staff');
    const token = await loginToken(t.url, farm.code, staff);
    const me = await client(t.url, token).get('/api/auth/me');
    assert.equal(me.body.data.user.role, 'staff');
    assert.equal(me.body.data.user.username, staff.username);
  });

  it('locks a tenant+username after 10 failed attempts in 15 minutes, even with the right password', async () => {
    t.clock.advance(3_600_000); // a fresh window for the address limit
    const user = await makeUser(t.database.db, farm, 'staff');
    for (let i = 0; i < 10; i++) {
      const res = await login({ tenantcode: farm.code, username: user.username, password: 'wrong' });
      assert.deepEqual(res.body, BAD_CREDENTIALS);
    }
    const locked = await login({ tenantcode: farm.code, username: user.username, password: user.password });
    assert.equal(locked.status, 429);
    assert.equal(locked.body[0].meta.status_code, 429);
    assert.match(locked.body[0].meta.message, /Too many login attempts; try again in \d+ seconds/);
    assert.equal(Number(locked.headers.get('retry-after')) > 0, true);
    // Another user of the same tenant is not affected.
    const owner = await login({ tenantcode: farm.code, username: 'owner', password: farm.owner.password });
    assert.equal(owner.body.meta.status_code, 0);
    t.clock.advance(15 * 60_000);
    const later = await login({ tenantcode: farm.code, username: user.username, password: user.password });
    assert.equal(later.body.meta.status_code, 0);
  });

  it('holds the per-user limit against parallel attempts', async () => {
    t.clock.advance(3_600_000);
    const user = await makeUser(t.database.db, farm, 'staff');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        login({ tenantcode: farm.code, username: user.username, password: 'wrong' }),
      ),
    );
    const checked = answers.filter((a) => a.status === 200);
    assert.ok(checked.length <= 10, `${checked.length} attempts were checked`);
    assert.ok(answers.every((a) => a.status === 200 || a.status === 429));
    // Refused attempts do not extend the lock: 15 minutes after the failures it is over.
    t.clock.advance(15 * 60_000);
    const later = await login({ tenantcode: farm.code, username: user.username, password: user.password });
    assert.equal(later.body.meta.status_code, 0);
  });

  it('limits one client address to 60 attempts a minute', async () => {
    t.clock.advance(3_600_000);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const res = await login({ tenantcode: other.code, username: `user${i}`, password: 'wrong' });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses.slice(0, 60), new Array(60).fill(200));
    assert.equal(statuses[60], 429);
    t.clock.advance(60_000);
    const res = await login({ tenantcode: other.code, username: 'owner', password: other.owner.password });
    assert.equal(res.body.meta.status_code, 0);
  });

  it('locks out only the address a stranger guesses from, not the owner elsewhere', async () => {
    t.clock.advance(3_600_000);
    const fromStranger = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 10; i++) {
      const res = await login({ tenantcode: farm.code, username: 'owner', password: 'guess' }, fromStranger);
      assert.deepEqual(res.body, BAD_CREDENTIALS);
    }
    const stranger = await login(
      { tenantcode: farm.code, username: 'owner', password: farm.owner.password },
      fromStranger,
    );
    assert.equal(stranger.status, 429);
    // The owner, from their own address, signs in as usual.
    const owner = await login(
      { tenantcode: farm.code, username: 'owner', password: farm.owner.password },
      { 'x-forwarded-for': '198.51.100.20' },
    );
    assert.equal(owner.body.meta.status_code, 0, owner.text);
  });

  it('locks a username from every address after 100 failures spread over many addresses', async () => {
    t.clock.advance(3_600_000);
    const user = await makeUser(t.database.db, farm, 'staff');
    for (let i = 0; i < 100; i++) {
      const res = await login(
        { tenantcode: farm.code, username: user.username, password: 'guess' },
        { 'x-forwarded-for': `203.0.113.${i % 25}` },
      );
      assert.deepEqual(res.body, BAD_CREDENTIALS, `attempt ${i}`);
    }
    const fresh = await login(
      { tenantcode: farm.code, username: user.username, password: user.password },
      { 'x-forwarded-for': '198.51.100.99' },
    );
    assert.equal(fresh.status, 429);
    t.clock.advance(15 * 60_000);
    const later = await login(
      { tenantcode: farm.code, username: user.username, password: user.password },
      { 'x-forwarded-for': '198.51.100.99' },
    );
    assert.equal(later.body.meta.status_code, 0);
  });

  it('tells owners which accounts are under attack', async () => {
    t.clock.advance(48 * 3_600_000); // earlier tests' failures are older than the notice's 24 hours
    const ownerToken = await loginToken(t.url, farm.code, farm.owner);
    const none = await client(t.url, ownerToken).get('/api/auth/login-alerts');
    assert.deepEqual(none.body, { data: [] }, none.text);
    for (let i = 0; i < 12; i++) {
      await login(
        { tenantcode: farm.code, username: 'owner', password: 'guess' },
        { 'x-forwarded-for': `203.0.113.${i % 3}` },
      );
    }
    // Another tenant's failures are not this tenant's business, nor are a few typos.
    for (let i = 0; i < 12; i++)
      await login({ tenantcode: other.code, username: 'owner', password: 'guess' });
    for (let i = 0; i < 3; i++) await login({ tenantcode: farm.code, username: 'typo', password: 'guess' });
    const alerts = await client(t.url, ownerToken).get('/api/auth/login-alerts');
    assert.equal(alerts.status, 200);
    assert.deepEqual(alerts.body, {
      data: [
        {
          username: 'owner',
          failed_attempts: 12,
          addresses: 3,
          last_failed_at: new Date(t.clock.now()).toISOString(),
          locked_until: null,
        },
      ],
    });
    const staff = await makeUser(t.database.db, farm, 'staff');
    const forStaff = await client(t.url, await loginToken(t.url, farm.code, staff)).get(
      '/api/auth/login-alerts',
    );
    assert.equal(forStaff.status, 403);
    t.clock.advance(24 * 3_600_000 + 1);
    const later = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    assert.deepEqual((await later.get('/api/auth/login-alerts')).body, { data: [] });
  });

  it('never lets a token of one tenant see another tenant', async () => {
    const token = await loginToken(t.url, other.code, other.owner);
    const me = await client(t.url, token).get('/api/auth/me');
    assert.equal(me.body.data.tenant.code, other.code);
    assert.equal(me.body.data.user.id, other.owner.id);
  });

  it('applies a role change to the very next request of a token already in use', async () => {
    const staff = await makeUser(t.database.db, farm, 'staff');
    const token = await loginToken(t.url, farm.code, staff);
    const owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    assert.equal((await client(t.url, token).get('/api/webhooks')).status, 403);
    assert.equal((await owner.put(`/api/users/${staff.id}`, { json: { role: 'owner' } })).status, 200);
    assert.equal((await client(t.url, token).get('/api/webhooks')).status, 200);
    assert.equal((await owner.put(`/api/users/${staff.id}`, { json: { role: 'staff' } })).status, 200);
    assert.equal((await client(t.url, token).get('/api/webhooks')).status, 403);
  });

  it('refuses a token at once when another process revokes it or removes its user', async () => {
    const staff = await makeUser(t.database.db, farm, 'staff');
    const revoked = await loginToken(t.url, farm.code, staff);
    const kept = await loginToken(t.url, farm.code, farm.owner);
    assert.equal((await client(t.url, revoked).get('/api/auth/me')).status, 200);
    assert.equal((await client(t.url, kept).get('/api/auth/me')).status, 200);
    // Another process's connection to the same database, as a second `furrow` process would have,
    // and its code: a write of tokens or users says so (authChanged), which on PostgreSQL is the
    // NOTIFY every process hears (test/token-cache-processes.test.ts has real processes).
    const elsewhere = openDatabase(database.url, { maxConnections: 1 });
    try {
      await elsewhere.db
        .updateTable('access_tokens')
        .set({ revoked_at: t.clock.now() })
        .where('token_hash', '=', sha256Hex(revoked))
        .execute();
      await authChanged(elsewhere.db);
      assert.equal((await client(t.url, revoked).get('/api/auth/me')).status, 401);
      assert.equal((await client(t.url, kept).get('/api/auth/me')).status, 200);
      const again = await loginToken(t.url, farm.code, staff);
      assert.equal((await client(t.url, again).get('/api/auth/me')).status, 200);
      await elsewhere.db
        .updateTable('users')
        .set({ deleted_at: t.clock.now() })
        .where('id', '=', staff.id)
        .execute();
      await authChanged(elsewhere.db);
      assert.equal((await client(t.url, again).get('/api/auth/me')).status, 401);
    } finally {
      await elsewhere.close();
    }
  });
});
