// The HTTP conventions every route shares: error shapes and statuses, limits, request ids,
// log hygiene, health checks and the OpenAPI document.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, it } from 'node:test';
import { loggerOptions } from '../src/platform/http/logging.js';
import { client, request, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant } from './support/factories.js';
import { assertErrorShape as assertSharedErrorShape } from './support/resources.js';

/** The shared check (known code with its own status), and a message that says something. */
function assertErrorShape(body: unknown, status: number): ReturnType<typeof assertSharedErrorShape> {
  const meta = assertSharedErrorShape(body, status);
  assert.ok(meta.message.length > 0);
  return meta;
}

forEachDialect('HTTP conventions', (database) => {
  let t: TestApp;
  let token: string;
  let farmCode: string;
  let farmOwner: { username: string; password: string };
  const logLines: string[] = [];

  before(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestApp(database.url, {
      logger: loggerOptions('info', sink),
      extend: (app) => {
        app.get('/test/boom', { config: { public: true } }, async () => {
          throw new Error('select * from secret_table -- internal detail');
        });
      },
    });
    const farm = await makeTenant(t.database.db);
    farmCode = farm.code;
    farmOwner = farm.owner;
    token = await loginToken(t.url, farm.code, farm.owner);
  });
  after(() => t.close());

  it('400 for malformed JSON', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', {
      raw: '{"tenantcode": "x",',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.match(assertErrorShape(res.body, 400).message, /not valid JSON/);
  });

  it('an empty JSON body is no body: 422 where a body is needed, fine where none is', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', {
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 422);
    assertErrorShape(res.body, 422);
    const logout = await request(t.url, 'POST', '/api/auth/logout', {
      raw: '',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await loginToken(t.url, farmCode, farmOwner)}`,
      },
    });
    assert.equal(logout.status, 200);
  });

  it('400 for a JSON body that would poison prototypes', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', {
      raw: '{"tenantcode":"a","username":"b","password":"c","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assertErrorShape(res.body, 400);
  });

  it('404 for an unknown path, in the error shape', async () => {
    const res = await client(t.url, token).get('/api/does/not/exist');
    assert.equal(res.status, 404);
    assertErrorShape(res.body, 404);
  });

  it('405 with Allow for a known path and a wrong method', async () => {
    const res = await client(t.url, token).put('/api/auth/login', { json: {} });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    assert.match(assertErrorShape(res.body, 405).message, /PUT is not allowed/);
  });

  it('413 for a body over 1 MB', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', {
      json: { tenantcode: 'x', username: 'y', password: 'z'.repeat(1024 * 1024) },
    });
    assert.equal(res.status, 413);
    assertErrorShape(res.body, 413);
  });

  it('415 for an unsupported content type', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', {
      raw: '<login/>',
      headers: { 'content-type': 'application/xml' },
    });
    assert.equal(res.status, 415);
    assertErrorShape(res.body, 415);
  });

  it('422 listing every bad field', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', {
      json: { tenantcode: '', username: {}, password: [] },
    });
    assert.equal(res.status, 422);
    const meta = assertErrorShape(res.body, 422);
    assert.deepEqual((meta.errors as { field: string }[]).map((e) => e.field).sort(), [
      'password',
      'tenantcode',
      'username',
    ]);
  });

  it('422 for a body that is not an object', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', { json: [1, 2] });
    assert.equal(res.status, 422);
    assertErrorShape(res.body, 422);
  });

  it('500 without the internal message or a stack trace, and logs the error', async () => {
    const res = await request(t.url, 'GET', '/test/boom');
    assert.equal(res.status, 500);
    assert.equal(assertErrorShape(res.body, 500).message, 'Internal server error');
    assert.doesNotMatch(res.text, /secret_table|stack|at .*\.ts/);
    assert.ok(logLines.some((line) => line.includes('secret_table') && line.includes('"level":50')));
  });

  it('gives every answer a request id and echoes a sane incoming one', async () => {
    const generated = await request(t.url, 'GET', '/healthz');
    assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const echoed = await request(t.url, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'trace-abc.123');
    const replaced = await request(t.url, 'GET', '/healthz', {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    assert.notEqual(replaced.headers.get('x-request-id'), 'bad id with spaces');
  });

  it('never writes a token into the log', async () => {
    await request(t.url, 'GET', `/api/auth/me?token=${token}`);
    await client(t.url, token).get('/api/auth/me');
    const joined = logLines.join('\n');
    assert.ok(joined.includes('token=[redacted]'));
    assert.ok(!joined.includes(token));
  });

  it('never writes a token into the log, however its parameter is spelled', async () => {
    // Each of these authenticates: the query parser decodes the name to `token`.
    for (const name of [
      'token',
      'tok%65n',
      '%74oken',
      '%74%6F%6B%65%6E',
      '[token]',
      '%5Btoken%5D',
      '%5btoken%5d',
    ]) {
      logLines.length = 0;
      const res = await request(t.url, 'GET', `/api/auth/me?page=1&${name}=${token}&x=1`);
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      const joined = logLines.join('\n');
      assert.ok(joined.includes('[redacted]'), `${name}: ${joined}`);
      assert.ok(!joined.includes(token), `${name} leaked: ${joined}`);
    }
    // These do not authenticate, and are not logged either.
    for (const name of ['token[]', 'token[0]', 'TOKEN', 'token%5B%5D']) {
      logLines.length = 0;
      await request(t.url, 'GET', `/api/auth/me?${name}=${token}`);
      assert.ok(!logLines.join('\n').includes(token), `${name} leaked: ${logLines.join('\n')}`);
    }
  });

  it('/healthz and /readyz answer without a token', async () => {
    assert.deepEqual((await request(t.url, 'GET', '/healthz')).body, { status: 'ok' });
    assert.deepEqual((await request(t.url, 'GET', '/readyz')).body, { status: 'ready' });
  });

  it('serves OpenAPI 3.1 and the interactive reference', async () => {
    const doc = await request(t.url, 'GET', '/openapi.json');
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, '3.1.0');
    assert.ok(doc.body.paths['/api/auth/login'].post);
    assert.ok(doc.body.paths['/api/auth/logout'].post);
    const ui = await request(t.url, 'GET', '/docs/');
    assert.equal(ui.status, 200);
    assert.match(ui.text, /<html/i);
  });
});

forEachDialect('readiness', (database) => {
  it('/readyz answers 503 when the database is gone', async () => {
    const t = await startTestApp(database.url);
    try {
      await t.database.close();
      const res = await request(t.url, 'GET', '/readyz');
      assert.equal(res.status, 503);
      assertErrorShape(res.body, 503);
      assert.equal((await request(t.url, 'GET', '/healthz')).status, 200);
    } finally {
      await t.app.close();
    }
  });
});
