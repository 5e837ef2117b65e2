// Every failure answers the one error shape with its machine code, the framework's own too (a path
// it cannot decode, bytes Node's parser refuses, a body of another type or of none, JSON nested too
// deep, a body too large), and no answer echoes the token sent in its query.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ERROR_CODES, type ErrorCode } from '../src/platform/errors.js';
import { client, request, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from './support/factories.js';
import { inlineSchemas } from './support/openapi.js';
import { type RawAnswer, rawRequest } from './support/raw-http.js';
import { assertErrorShape, type Client, type Graph, seedGraph } from './support/resources.js';

const nested = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

forEachDialect('error answers', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let token: string;
  let c: Client;
  let g: Graph;

  /** The answer in the error shape with this status and code, the token nowhere in it. */
  const assertFailure = (answer: RawAnswer, status: number, code: ErrorCode, label: string) => {
    assert.equal(answer.status, status, `${label}: ${answer.raw.slice(0, 400)}`);
    const meta = assertErrorShape(answer.body, status, code);
    assert.ok(!answer.raw.includes(token), `${label} echoes the token: ${answer.raw}`);
    assert.match(answer.headers['content-type'] ?? '', /^application\/json/, label);
    assert.ok(answer.headers['x-request-id'], `${label}: a request id`);
    return meta;
  };

  /** A request written on a socket, the token in its query. */
  const send = (method: string, path: string, headers: string[] = [], body = '') => {
    const head = [
      `${method} ${path}${path.includes('?') ? '&' : '?'}token=${token} HTTP/1.1`,
      'Host: furrow.test',
    ];
    if (body !== '') head.push(`Content-Length: ${Buffer.byteLength(body)}`);
    return rawRequest(t.url, [...head, ...headers].join('\r\n'), body);
  };

  before(async () => {
    t = await startTestApp(database.url);
    farm = await makeTenant(t.database.db);
    token = await loginToken(t.url, farm.code, farm.owner);
    c = client(t.url, token);
    g = await seedGraph(c);
  });
  after(() => t.close());

  it('answers a bad percent-encoding in the path with 400 bad_url_encoding, never echoing the URL', async () => {
    for (const path of ['/api/crop/crop/%ZZ', '/api/crop/crop/%C3', '/api/nothing/%E0%A4%A', '/manage/%zz']) {
      const meta = assertFailure(await send('GET', path), 400, 'bad_url_encoding', path);
      assert.equal(
        meta.message,
        'The request path is not valid percent-encoding: a % must be followed by two hexadecimal digits of UTF-8',
      );
    }
    const bearer = await send('GET', '/api/crop/crop/%ZZ', [`Authorization: Bearer ${token}`]);
    assertFailure(bearer, 400, 'bad_url_encoding', 'with a Bearer token');
    const vi = await send('GET', '/api/crop/crop/%ZZ', ['Accept-Language: vi']);
    assert.match(assertFailure(vi, 400, 'bad_url_encoding', 'vi').message, /^Đường dẫn/);
  });

  it('answers raw non-ASCII or control bytes in the path, query or a header with 400 bad_request', async () => {
    const cases: Array<[string, Buffer]> = [
      [
        'query',
        Buffer.from(`GET /api/crop/crop?search[name]=cà chua&token=${token} HTTP/1.1\r\nHost: x`, 'utf8'),
      ],
      [
        'query utf8',
        Buffer.from(`GET /api/crop/crop?search[name]=càphê&token=${token} HTTP/1.1\r\nHost: x`, 'utf8'),
      ],
      ['path', Buffer.from(`GET /api/crop/cà?token=${token} HTTP/1.1\r\nHost: x`, 'utf8')],
      ['latin1', Buffer.from(`GET /api/crop/crop?q=\xe9&token=${token} HTTP/1.1\r\nHost: x`, 'latin1')],
      [
        'header',
        Buffer.from(`GET /api/crop/crop?token=${token} HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b`, 'latin1'),
      ],
    ];
    for (const [label, head] of cases) {
      const meta = assertFailure(await rawRequest(t.url, head), 400, 'bad_request', label);
      assert.match(meta.message, /percent-encoded/);
    }
  });

  it('answers headers larger than the server reads with 431 headers_too_large', async () => {
    const answer = await send('GET', '/api/crop/crop', [`X-Large: ${'a'.repeat(20_000)}`]);
    assertFailure(answer, 431, 'headers_too_large', 'large headers');
  });

  it('answers 415 unsupported_media_type to any body that is neither JSON nor form, login too', async () => {
    for (const path of ['/api/crop/crop', '/api/auth/login']) {
      for (const type of [
        'text/plain',
        'text/plain; charset=utf-8',
        'application/xml',
        'multipart/form-data; boundary=x',
      ]) {
        const answer = await send('POST', path, [`Content-Type: ${type}`], 'name=Tomato');
        const meta = assertFailure(answer, 415, 'unsupported_media_type', `${path} ${type}`);
        assert.match(meta.message, /^Content type .+ is not supported; send application\/json/);
      }
    }
    const put = await send('PUT', `/api/crop/crop/${g.crop}`, ['Content-Type: text/plain'], 'x');
    assertFailure(put, 415, 'unsupported_media_type', 'PUT text/plain');
    // Nothing was created by any of them.
    assert.equal((await c.get('/api/crop/crop?search[name]=Tomato')).body.length, 0);
  });

  it('answers a body without a content type with 415 saying so', async () => {
    for (const path of ['/api/crop/crop', '/api/auth/login']) {
      const answer = await send('POST', path, [], '{"name":"x"}');
      const meta = assertFailure(answer, 415, 'unsupported_media_type', path);
      assert.equal(
        meta.message,
        'The request has a body but no Content-Type; send application/json or application/x-www-form-urlencoded',
      );
    }
    const chunked = await rawRequest(
      t.url,
      `POST /api/crop/crop?token=${token} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked`,
      '2\r\n{}\r\n0\r\n\r\n',
    );
    assertFailure(chunked, 415, 'unsupported_media_type', 'chunked');
  });

  it('answers malformed, too deep and too large JSON with 400 and 413', async () => {
    const json = ['Content-Type: application/json'];
    assertFailure(await send('POST', '/api/crop/crop', json, '{"name":'), 400, 'malformed_json', 'malformed');
    assertFailure(await send('POST', '/api/crop/crop', json, nested(65)), 400, 'json_too_deep', 'deep');
    assertFailure(await send('POST', '/api/auth/login', json, nested(10_000)), 400, 'json_too_deep', 'login');
    const large = `{"name":"${'x'.repeat(1024 * 1024)}"}`;
    assertFailure(await send('POST', '/api/crop/crop', json, large), 413, 'payload_too_large', 'large');
  });

  it('gives every error of the API its code', async () => {
    const json = ['Content-Type: application/json'];
    const staff = await makeUser(t.database.db, farm, 'staff');
    const staffToken = await loginToken(t.url, farm.code, staff);
    const key = await c.post('/api/auth/api-keys', { json: { name: 'Gateway', role: 'owner' } });
    assert.equal(key.status, 201, key.text);
    const apiKey = (key.body.data ?? key.body[0]).key as string;

    const cases: Array<[Promise<RawAnswer>, number, ErrorCode]> = [
      [send('POST', '/api/crop/crop', json, '{}'), 422, 'validation_failed'],
      [rawRequest(t.url, 'GET /api/crop/crop?token=nope HTTP/1.1\r\nHost: x'), 401, 'token_invalid'],
      [send('GET', '/api/crop/crop/999999'), 404, 'not_found'],
      [send('GET', '/api/crop/crop/abc'), 404, 'not_found'],
      [send('GET', `/api/crop/crop/${'9'.repeat(120)}`), 404, 'not_found'],
      [send('GET', '/api/no/such/thing'), 404, 'not_found'],
      [send('PATCH', '/api/auth/login'), 405, 'method_not_allowed'],
      [send('DELETE', `/api/farms/${g.farm}`), 409, 'farm_in_use'],
      [send('DELETE', `/api/blocks/${g.block}`), 409, 'block_in_use'],
      [send('DELETE', `/api/zones/${g.zone}`), 409, 'zone_in_use'],
      [send('DELETE', `/api/users/${farm.owner.id}`), 409, 'own_account'],
      [
        rawRequest(
          t.url,
          `POST /api/auth/api-keys?token=${staffToken} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Type: application/json`,
          '{}',
        ),
        403,
        'owner_only',
      ],
      [
        rawRequest(
          t.url,
          `PUT /api/account?token=${apiKey} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Type: application/json`,
          '{}',
        ),
        403,
        'session_only',
      ],
    ];
    for (const [pending, status, code] of cases) {
      const answer = await pending;
      assertFailure(answer, status, code, code);
      assert.ok(!answer.raw.includes(staffToken) && !answer.raw.includes(apiKey), `${code} echoes a key`);
    }

    const batch = await c.post('/api/harvest/batches', {
      json: { parcel_id: g.parcel, crop_type_id: g.cropType, quantity_kg: 10 },
    });
    assert.equal(batch.status, 201, batch.text);
    const confirm = `/api/harvest/batches/${batch.body[0].id}/confirm`;
    assert.equal((await c.post(confirm)).status, 200);
    assertFailure(await send('POST', confirm), 409, 'harvest_already_confirmed', 'confirmed twice');
  });

  it('answers too many failed logins with 429 too_many_requests and Retry-After', async () => {
    const json = ['Content-Type: application/json'];
    const body = JSON.stringify({ tenantcode: farm.code, username: 'guesser', password: 'wrong' });
    let answer = await send('POST', '/api/auth/login', json, body);
    for (let i = 0; i < 20 && answer.status === 200; i++)
      answer = await send('POST', '/api/auth/login', json, body);
    assertFailure(answer, 429, 'too_many_requests', 'login');
    assert.match(answer.headers['retry-after'] ?? '', /^\d+$/);
  });

  it('documents meta.code with every code in the OpenAPI error answers', async () => {
    const openapi = inlineSchemas((await request(t.url, 'GET', '/openapi.json')).body);
    const answer = openapi.paths['/api/crop/crop'].get.responses['401'].content['application/json'].schema;
    const code = answer.items.properties.meta.properties.code;
    assert.deepEqual([...code.enum].sort(), Object.keys(ERROR_CODES).sort());
    assert.ok(answer.items.properties.meta.required.includes('code'));
  });

  it('keeps the wrong-credentials answer of the original service exactly', async () => {
    const res = await request(t.url, 'POST', '/api/auth/login', {
      json: { tenantcode: farm.code, username: 'owner', password: 'wrong' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { meta: { status_code: 1, message: 'The account or password is incorrect' } });
  });
});
