// Random bytes in paths, query strings and header values, written raw on a socket: every answer is
// a success or the error shape with a known code answered with its own status, never a 5xx, and
// none echoes the token sent in the query (or the Authorization header).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant } from './support/factories.js';
import { rawRequest } from './support/raw-http.js';
import { assertErrorShape, type Graph, seedGraph } from './support/resources.js';

const RUNS = Number(process.env.FURROW_PROPERTY_RUNS ?? 12) * 8;

/**
 * Where the random parts go: real routes (lists, records, actions) and unknown ones. (/manage/ is
 * the farm app's pages, not the API: without a build it answers a plain-text 503 for browsers.)
 */
const PREFIXES = [
  '/api/crop/crop',
  '/api/crop/crop/',
  '/api/crop/season/',
  '/api/diary/production',
  '/api/farms/',
  '/api/iot/devices/',
  '/api/harvest/batches/',
  '/api/webhooks/',
  '/api/auth/api-keys',
  '/api/account',
  '/api/today',
  '/api/no/such/',
  '/openapi.json',
  '/healthz',
  '/',
];

/** Any byte but CR and LF, which frame the request itself. */
const anyByte = fc.integer({ min: 0, max: 255 }).filter((b) => b !== 0x0d && b !== 0x0a);
/** Printable ASCII but the space: what a well-behaved client sends, minus its encoding. */
const printable = fc.integer({ min: 0x21, max: 0x7e });
const bytes = (unit: fc.Arbitrary<number>, maxLength: number) =>
  fc.array(unit, { maxLength }).map((list) => Buffer.from(list));
/** Percent-encodings good and bad: `%41`, `%C3%A0`, `%ZZ`, a lone `%C3`, `%`. */
const percent = fc
  .oneof(
    fc.constantFrom('%ZZ', '%', '%4', '%C3', '%C3%A0', '%E0%A4%A', '%00', '%FF', '%2F', '%25', '%ED%A0%80'),
    fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`),
  )
  .map((s) => Buffer.from(s, 'latin1'));
/** Query parameters the routes read, with odd values. */
const knownParam = fc
  .tuple(
    fc.constantFrom('page', 'pageLimit', 'search[name]', 'strSearch[]', 'from_date', 'season_id', 'id', 'tz'),
    fc.string({ maxLength: 8 }),
  )
  .map(([name, value]) => Buffer.from(`${name}=${encodeURIComponent(value)}&`));
/** Pieces of a path or query: mostly what reaches the routes, now and then what the parser refuses. */
const urlPart = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: bytes(printable, 12) },
      { weight: 3, arbitrary: percent },
      { weight: 3, arbitrary: knownParam },
      { weight: 1, arbitrary: bytes(anyByte, 6) },
      { weight: 1, arbitrary: fc.string({ maxLength: 6 }).map((s) => Buffer.from(s, 'utf8')) },
    ),
    { maxLength: 4 },
  )
  .map((parts) => Buffer.concat(parts));

const HEADER_NAMES = [
  'Accept',
  'Accept-Language',
  'Authorization',
  'Content-Type',
  'Prefer',
  'X-Request-Id',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'User-Agent',
  'X-Forwarded-For',
];
const header = fc.tuple(
  fc.constantFrom(...HEADER_NAMES),
  fc.oneof(
    { weight: 3, arbitrary: bytes(printable, 40) },
    { weight: 1, arbitrary: bytes(anyByte, 20) },
    { weight: 2, arbitrary: urlPart },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        Buffer.from('vi'),
        Buffer.from('Bearer x'),
        Buffer.from('application/json'),
        Buffer.from('text/plain'),
        Buffer.from('*'),
      ),
    },
  ),
);

const requestArbitrary = fc.record({
  method: fc.constantFrom('GET', 'GET', 'GET', 'DELETE', 'PUT', 'POST', 'PATCH', 'OPTIONS'),
  prefix: fc.constantFrom(...PREFIXES),
  path: fc.oneof(fc.constant(Buffer.alloc(0)), urlPart),
  query: urlPart,
  tokenFirst: fc.boolean(),
  bearer: fc.boolean(),
  headers: fc.array(header, { maxLength: 2 }),
  body: fc.option(
    fc.oneof(
      fc.constantFrom('{}', '{"name":"x"}', 'name=x', '[', '{"a":'.repeat(80)),
      fc.string({ maxLength: 20 }),
    ),
    { nil: undefined },
  ),
});

forEachDialect('error shape under random bytes', (database) => {
  let t: TestApp;
  let token: string;
  let g: Graph;

  before(async () => {
    t = await startTestApp(database.url);
    const farm = await makeTenant(t.database.db);
    token = await loginToken(t.url, farm.code, farm.owner);
    g = await seedGraph(client(t.url, token));
  });
  after(() => t.close());

  it('answers every request with a success or a coded error, never a 5xx, never the token', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArbitrary, async (r) => {
        const tokenParam = Buffer.from(`token=${token}`);
        const query = r.tokenFirst
          ? Buffer.concat([tokenParam, Buffer.from('&'), r.query])
          : Buffer.concat([r.query, Buffer.from('&'), tokenParam]);
        // A path to a real record now and then, so the random part lands on real handlers.
        const prefix = r.prefix === '/api/farms/' && r.path.length === 0 ? `/api/farms/${g.farm}` : r.prefix;
        const lines = [
          Buffer.concat([
            Buffer.from(`${r.method} ${prefix}`),
            r.path,
            Buffer.from('?'),
            query,
            Buffer.from(' HTTP/1.1'),
          ]),
          Buffer.from('Host: furrow.test'),
          ...(r.bearer ? [Buffer.from(`Authorization: Bearer ${token}`)] : []),
          ...r.headers.map(([name, value]) => Buffer.concat([Buffer.from(`${name}: `), value])),
        ];
        if (r.body !== undefined) lines.push(Buffer.from(`Content-Length: ${Buffer.byteLength(r.body)}`));
        const head = Buffer.concat(
          lines.flatMap((line, i) => (i === 0 ? [line] : [Buffer.from('\r\n'), line])),
        );
        const answer = await rawRequest(t.url, head, r.body ?? '');
        const label = JSON.stringify(head.toString('latin1').replaceAll(token, '<token>')).slice(0, 400);
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
        assert.ok(answer.status >= 200 && answer.status < 500, `${label}: ${answer.raw.slice(0, 500)}`);
        assert.ok(!answer.raw.includes(token), `${label} echoes the token: ${answer.raw.slice(0, 500)}`);
        if (answer.status >= 400) assertErrorShape(answer.body, answer.status);
      }),
      { numRuns: RUNS },
    );
    // FURROW_PROPERTY_STATUSES=1 prints how the answers spread over statuses.
    if (process.env.FURROW_PROPERTY_STATUSES)
      process.stdout.write(`# statuses ${JSON.stringify([...seen])}\n`);
    // The runs reached both the framework's refusals and the routes behind them.
    assert.ok(seen.has(400), `statuses: ${JSON.stringify([...seen])}`);
    assert.ok(
      [...seen.keys()].some((s) => s !== 400),
      `statuses: ${JSON.stringify([...seen])}`,
    );
  });
});
