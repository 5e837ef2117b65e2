// The published contract, as an integrator meets it: /openapi.json passes `redocly lint` (recommended
// rules) with no error, names every operation once, resolves every $ref and lists every message the
// webhooks send; a TypeScript client generated from it with openapi-typescript type-checks and makes
// real calls with openapi-fetch (login, a list filtered with search[name], create, update).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../src/modules/webhooks/events.js';
import { signPayload } from '../src/modules/webhooks/signing.js';
import { WEBHOOK_MESSAGE_KINDS } from '../src/modules/webhooks/webhook.openapi.js';
import { request, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { makeTenant } from './support/factories.js';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
// Redocly's own notices and telemetry stay off in tests.
const quietEnv = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

type Json = any;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function operationsOf(document: Json): Array<{ path: string; method: string; operation: Json }> {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Json>)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

function refsOf(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsOf(v, found);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') found.push(v);
      else refsOf(v, found);
    }
  }
  return found;
}

function resolvePointer(document: Json, ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `${ref} is local`);
  let node: Json = document;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

forEachDialect('the OpenAPI contract', (database) => {
  let t: TestApp;
  let document: Json;
  let dir: string;
  let tenant: Awaited<ReturnType<typeof makeTenant>>;

  before(async () => {
    t = await startTestApp(database.url);
    tenant = await makeTenant(t.database.db);
    const answer = await request(t.url, 'GET', '/openapi.json');
    assert.equal(answer.status, 200);
    document = answer.body;
    dir = mkdtempSync(join(tmpdir(), 'furrow-openapi-'));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('passes redocly lint with the recommended rules: no error', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const result = await run(bin('redocly'), ['lint', file, '--format=summary', '--max-problems=1000'], {
      env: quietEnv,
      cwd: dir,
    }).catch((error: { stdout: string; stderr: string; code: number }) => error);
    const output = `${result.stdout}\n${result.stderr}`;
    assert.ok(!('code' in result) || result.code === 0, output);
    assert.doesNotMatch(output, /^error\s/m, output);
    assert.doesNotMatch(output, /Validation failed/, output);
  });

  it('names every operation with a unique camelCase operationId', () => {
    const ids = operationsOf(document).map(({ path, method, operation }) => {
      assert.equal(typeof operation.operationId, 'string', `${method} ${path} has an operationId`);
      assert.match(operation.operationId, /^[a-z][A-Za-z0-9]*$/, `${method} ${path}`);
      return operation.operationId as string;
    });
    assert.ok(ids.length > 100);
    assert.deepEqual(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
    );
    for (const id of ['loginUser', 'listCrops', 'getCrop', 'createCrop', 'updateCrop', 'deleteCrop']) {
      assert.ok(ids.includes(id), id);
    }
    for (const id of ['listWebhookDeliveries', 'acknowledgeAlert', 'ingestReadings', 'listTasks']) {
      assert.ok(ids.includes(id), id);
    }
  });

  it('resolves every $ref, and the routes use the named schemas', () => {
    const refs = refsOf(document);
    for (const ref of new Set(refs)) assert.ok(resolvePointer(document, ref) !== undefined, ref);
    const schemas = document.components.schemas;
    for (const name of ['Crop', 'CropCreate', 'CropUpdate', 'Error', 'LoginAnswer', 'LoginRequest', 'Task']) {
      assert.ok(schemas[name], name);
      assert.ok(refs.includes(`#/components/schemas/${name}`), `${name} is used`);
    }
    const crop = document.paths['/api/crop/crop'];
    assert.deepEqual(crop.post.requestBody.content['application/json'].schema, {
      $ref: '#/components/schemas/CropCreate',
    });
    assert.deepEqual(crop.get.responses['401'].content['application/json'].schema, {
      $ref: '#/components/schemas/Error',
    });
    assert.ok(schemas.Error.items.properties.meta.properties.code.enum.includes('not_found'));
  });

  it('has servers, the version, the licence, described tags and examples', () => {
    assert.deepEqual(
      document.servers.map((s: Json) => s.url),
      ['/'],
    );
    assert.match(document.info.version, /^\d+\.\d+\.\d+/);
    assert.equal(document.info.license.identifier, 'Apache-2.0');
    const used = new Set(operationsOf(document).flatMap(({ operation }) => operation.tags ?? []));
    const described = new Map(document.tags.map((tag: Json) => [tag.name, tag.description]));
    for (const tag of used) assert.ok(described.get(tag) && described.get(tag) !== tag, `tag ${tag}`);
    const byId = new Map(operationsOf(document).map(({ operation }) => [operation.operationId, operation]));
    for (const id of [
      'loginUser',
      'createCrop',
      'createSeason',
      'createTask',
      'ingestReadings',
      'createWebhookEndpoint',
    ]) {
      const body = byId.get(id).requestBody.content['application/json'];
      assert.ok(Object.keys(body.examples ?? {}).length > 0, `${id} has a request example`);
    }
    assert.ok(byId.get('listCrops').responses['200'].content['application/json'].examples);
  });

  it('declares search and strSearch as bracket objects (deepObject)', () => {
    const parameter = (path: string, name: string) =>
      document.paths[path].get.parameters.find((p: Json) => p.name === name);
    for (const [path, name] of [
      ['/api/crop/crop', 'search'],
      ['/api/crop/season', 'search'],
      ['/api/template/season', 'search'],
      ['/api/diary/production', 'strSearch'],
    ] as const) {
      const p = parameter(path, name);
      assert.equal(p.in, 'query');
      assert.equal(p.style, 'deepObject', path);
      assert.equal(p.explode, true);
      assert.equal(p.schema.type, 'object');
      assert.ok(p.schema.properties.name, `${path} ${name}[name]`);
    }
    assert.equal(parameter('/api/crop/crop', 'page').required, false);
  });

  it('lists every message the webhooks send, with its envelope and the signature headers', () => {
    const kinds = Object.keys(document.webhooks).sort();
    assert.deepEqual(kinds, [...WEBHOOK_MESSAGE_KINDS].sort());
    for (const kind of [...EVENT_TYPES, TEST_EVENT_TYPE]) assert.ok(kinds.includes(kind), kind);
    // Signed during a rotation overlap: every header a message may carry.
    const signed = Object.keys(
      signPayload('whsec_dGVzdA==', { id: 'msg_x', eventType: 'x', body: '{}' }, 0, 'whsec_b2xk'),
    );
    for (const kind of kinds) {
      const post = document.webhooks[kind].post;
      const headers = post.parameters.filter((p: Json) => p.in === 'header').map((p: Json) => p.name);
      assert.deepEqual([...headers].sort(), [...signed].sort(), kind);
      const body = post.requestBody.content['application/json'];
      assert.deepEqual(body.schema.required, ['id', 'type', 'workspace_id', 'occurred_at', 'data']);
      assert.equal(body.schema.properties.type.const, kind);
      const example = Object.values(body.examples as Record<string, { value: Json }>)[0]?.value;
      assert.equal(example.type, kind);
      for (const field of body.schema.properties.data.required) assert.ok(field in example.data, field);
    }
  });

  it('generates a TypeScript client that type-checks and makes real calls', async () => {
    const schema = astToString(await openapiTS(JSON.stringify(document)));
    writeFileSync(join(dir, 'schema.d.ts'), schema);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['client.ts'],
      }),
    );
    writeFileSync(join(dir, 'client.ts'), CLIENT_PROGRAM);
    await run(bin('tsc'), ['-p', dir]).catch((error: { stdout: string }) => {
      assert.fail(`the generated client does not type-check:\n${error.stdout}`);
    });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', join(dir, 'client.ts')], {
      cwd: dir,
      env: {
        ...process.env,
        FURROW_URL: t.url,
        FURROW_TENANT: tenant.code,
        FURROW_USER: tenant.owner.username,
        FURROW_PASSWORD: tenant.owner.password,
      },
    });
    const out = JSON.parse(stdout);
    assert.equal(out.loginStatus, 0);
    assert.match(out.listUrl, /[?&]search%5Bname%5D=tom(&|$)|[?&]search\[name\]=tom(&|$)/);
    assert.deepEqual(out.listed, ['Tomato cherry']);
    assert.equal(out.createdStatus, 201);
    assert.equal(out.updatedPrice, 19500);
    assert.equal(out.fetchedPrice, 19500);
  });
});

/** The integrator's program: only the generated types and openapi-fetch. */
const CLIENT_PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const env = (name: string) => process.env[name] ?? '';
const baseUrl = env('FURROW_URL');
const anonymous = createClient<paths>({ baseUrl });
const login = await anonymous.POST('/api/auth/login', {
  body: { tenantcode: env('FURROW_TENANT'), username: env('FURROW_USER'), password: env('FURROW_PASSWORD') },
});
if (!login.data || !('data' in login.data)) throw new Error('login failed');
const token: string = login.data.data.token;

let listUrl = '';
const api = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });
api.use({
  onRequest({ request }) {
    if (request.method === 'GET') listUrl = request.url;
    return request;
  },
});

const created = await api.POST('/api/crop/crop', { body: { name: 'Tomato cherry', sku: 'TOM-C' } });
await api.POST('/api/crop/crop', { body: { name: 'Rice' } });
const crop = created.data?.[0];
if (!crop) throw new Error('create failed');
const id: number = crop.id;

const list = await api.GET('/api/crop/crop', { params: { query: { search: { name: 'tom' } } } });
const seenUrl = listUrl;
const listed: string[] = (list.data ?? []).map((item) => item.name);

const updated = await api.PUT('/api/crop/crop/{id}', {
  params: { path: { id }, header: { prefer: 'return=representation' } },
  body: { price: 19500 },
});
const changed = updated.data?.[0];
const updatedPrice = changed && 'price' in changed ? changed.price : undefined;
const fetched = await api.GET('/api/crop/crop/{id}', { params: { path: { id } } });

console.log(JSON.stringify({
  loginStatus: login.data.meta.status_code,
  createdStatus: created.response.status,
  listUrl: seenUrl,
  listed,
  updatedPrice,
  fetchedPrice: fetched.data?.[0]?.price,
}));
`;
