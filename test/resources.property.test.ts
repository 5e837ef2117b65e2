// Random malformed bodies and query strings against every resource endpoint: never a 500, every
// error in the error shape, and a refused request writes nothing.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import qs from 'qs';
import { RECORD_TABLES } from '../src/platform/db/records.js';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant } from './support/factories.js';
import { assertErrorShape, type Client, type Graph, seedGraph } from './support/resources.js';

const RUNS = Number(process.env.FURROW_PROPERTY_RUNS ?? 12);

/**
 * fc.assert, reporting a failure itself: fast-check's own report stringifies the counterexample,
 * which overflows the stack for the deeply nested values these properties generate.
 */
async function assertProperty<T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  const details = await fc.check(property, { numRuns });
  if (!details.failed) return;
  const shown = JSON.stringify(details.counterexample, (_key, value) =>
    typeof value === 'string' && value.length > 200 ? `${value.slice(0, 200)}…` : value,
  );
  const error = details.errorInstance as Error | undefined;
  throw new Error(
    `property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"): ` +
      `${error?.message ?? String(details.errorInstance)}\ncounterexample: ${(shown ?? '').slice(0, 2000)}`,
    { cause: details.errorInstance },
  );
}

interface Endpoint {
  path: string;
  fields: string[];
  detailId: (g: Graph) => number;
  updatable: boolean;
}

const ENDPOINTS: Endpoint[] = [
  {
    path: '/api/crop/crop',
    fields: [
      'name',
      'description',
      'crop_type',
      'category_id',
      'category_id_',
      'image',
      'images',
      'full_description',
      'sku',
      'code',
      'price',
      'status',
    ],
    detailId: (g) => g.crop,
    updatable: true,
  },
  {
    path: '/api/croptype/croptype',
    fields: ['name', 'description', 'parent_id', 'parent-id', 'images'],
    detailId: (g) => g.cropType,
    updatable: true,
  },
  {
    path: '/api/productcategory/productcategory',
    fields: ['name', 'code', 'description', 'status', 'parent_id', 'parent-id'],
    detailId: (g) => g.category,
    updatable: true,
  },
  {
    path: '/api/diary/production',
    fields: [
      'name',
      'description',
      'start',
      'end',
      'location',
      'images',
      'season_id',
      'category_task_id',
      'assigned_to',
      'sub_cates',
      'amount',
    ],
    detailId: (g) => g.task,
    updatable: true,
  },
  {
    path: '/api/crop/season',
    fields: [
      'name',
      'code',
      'crop_id',
      'start_date',
      'end_date',
      'status',
      'images',
      'manufacturers',
      'vendors',
      'attach_files',
      'farm_id',
      'block_id',
      'season_template_id',
      'amount',
      'temp_from',
    ],
    detailId: (g) => g.season,
    updatable: true,
  },
  {
    path: '/api/template/season',
    fields: ['name', 'crop_id', 'description', 'crop_type', 'order', 'block_id'],
    detailId: (g) => g.template,
    updatable: false,
  },
  {
    path: '/api/farms',
    fields: ['name', 'surface', 'lat', 'lng', 'published', 'order', 'avatar'],
    detailId: (g) => g.farm,
    updatable: true,
  },
  { path: '/api/blocks', fields: ['name', 'farm_id'], detailId: (g) => g.block, updatable: true },
  { path: '/api/zones', fields: ['name', 'farm_id'], detailId: (g) => g.zone, updatable: true },
  {
    path: '/api/parcels',
    fields: ['name', 'code', 'farm_id', 'block_id', 'zone_id', 'area'],
    detailId: (g) => g.parcel,
    updatable: true,
  },
  { path: '/api/diary/categories', fields: ['name'], detailId: (g) => g.diaryCategory, updatable: true },
  {
    path: '/api/diary/subcategories',
    fields: ['name', 'category_task_id'],
    detailId: (g) => g.subcategory,
    updatable: true,
  },
  {
    path: '/api/users',
    fields: ['username', 'password', 'role', 'name', 'picture'],
    detailId: () => 0,
    updatable: false,
  },
];

/** Every record table: a refused request changes none of them. */
const TABLES = RECORD_TABLES;

/** `[[[…"x"…]]]` nested `depth` levels, as JSON text. */
const nestedText = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

/** Values nested deep or long: as arrays, and as JSON strings within the 100 KB a string may hold. */
const deepValue = fc.oneof(
  fc.integer({ min: 15, max: 2000 }).map((depth) => JSON.parse(nestedText(depth)) as unknown),
  fc.integer({ min: 15, max: 45_000 }).map(nestedText),
  fc.integer({ min: 0, max: 1200 }).map((n) => Array.from({ length: n }, (_, i) => [i, { a: [i] }])),
  fc.constantFrom('[1,{"a":2},null]', '[[["/a.jpg"]]]', `[${'"x",'.repeat(20_000)}"x"]`),
);

/** Values an odd client might send for any field. */
const oddValue = fc.oneof(
  deepValue,
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.constantFrom(
    '',
    '0',
    '1',
    'true',
    'null',
    '[]',
    '2026-02-30',
    '2026-01-01 25:00:00',
    '99999999999',
    '-1',
    '1e3',
    '0x10',
    '1e400',
    '\u0000',
    'a\ud800b',
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.integer({ min: -2, max: 5 }), fc.string({ maxLength: 5 })), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

const bodyFor = (endpoint: Endpoint) =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...endpoint.fields), oddValue, { maxKeys: endpoint.fields.length }),
    fc.jsonValue({ maxDepth: 2 }),
  );

const queryValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '-1',
    '0',
    '1',
    '1001',
    '1e2',
    'abc',
    '2026-01-01',
    '2026-13-45',
    '2026-01-01 10:00:00',
    '%',
    '_',
    '\u0000',
    '\udc00',
    'Infinity',
    '-Infinity',
    '1e400',
    '0x10',
  ),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('name', 'code', 'sku', 'price', 'x'), fc.string({ maxLength: 8 }), {
    maxKeys: 3,
  }),
);
const queryString = fc.oneof(
  fc
    .dictionary(
      fc.constantFrom(
        'page',
        'pageLimit',
        'search',
        'strSearch',
        'from_date',
        'to_date',
        'farm_id',
        'category_task_id',
      ),
      queryValue,
      {
        maxKeys: 4,
      },
    )
    .map((q) => qs.stringify(q)),
  fc.string({ maxLength: 40 }).map((s) => encodeURI(s).replace(/#/g, '%23')),
);

/** A body form-encoded, or undefined when qs cannot encode it (nested past its recursion). */
function formEncoded(body: object): string | undefined {
  try {
    return qs.stringify(body);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

forEachDialect('resources under random input', (database) => {
  let t: TestApp;
  let c: Client;
  let g: Graph;

  /** Row count and latest change of every resource table: equal before and after means nothing was written. */
  const fingerprint = async () => {
    const parts: string[] = [];
    for (const table of TABLES) {
      const { rows } = await sql<{
        n: number;
        u: number | null;
      }>`select count(*) as n, max(updated_at) as u from ${sql.table(table)}`.execute(t.database.db);
      parts.push(`${table}:${Number(rows[0]?.n)}:${rows[0]?.u ?? ''}`);
    }
    const links = await sql<{ n: number }>`select count(*) as n from diary_task_subcategories`.execute(
      t.database.db,
    );
    return `${parts.join(',')},links:${Number(links.rows[0]?.n)}`;
  };

  const check = async (res: { status: number; body: unknown; text: string }, label: string) => {
    assert.ok(res.status < 500, `${label}: ${res.status} ${res.text}`);
    if (res.status >= 400) assertErrorShape(res.body, res.status);
  };

  before(async () => {
    t = await startTestApp(database.url);
    const farm = await makeTenant(t.database.db);
    c = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    g = await seedGraph(c);
  });
  after(() => t.close());

  for (const endpoint of ENDPOINTS) {
    it(`${endpoint.path}: random bodies and query strings`, async () => {
      await assertProperty(
        fc.asyncProperty(bodyFor(endpoint), fc.boolean(), async (body, asForm) => {
          t.clock.advance(1000);
          const before = await fingerprint();
          const form =
            asForm && body !== null && typeof body === 'object' && !Array.isArray(body)
              ? formEncoded(body)
              : undefined;
          const options = form === undefined ? { json: body } : { form };
          const res = await c.post(endpoint.path, options);
          await check(res, `POST ${JSON.stringify(body)}`);
          if (res.status >= 400)
            assert.equal(await fingerprint(), before, `refused POST wrote: ${JSON.stringify(body)}`);
          if (endpoint.updatable) {
            t.clock.advance(1000);
            const beforePut = await fingerprint();
            const put = await c.put(`${endpoint.path}/${endpoint.detailId(g)}`, options);
            await check(put, `PUT ${JSON.stringify(body)}`);
            if (put.status >= 400)
              assert.equal(await fingerprint(), beforePut, `refused PUT wrote: ${JSON.stringify(body)}`);
          }
        }),
        RUNS,
      );
      await assertProperty(
        fc.asyncProperty(queryString, async (query) => {
          await check(await c.get(`${endpoint.path}?${query}`), `GET ?${query}`);
        }),
        RUNS,
      );
      await assertProperty(
        fc.asyncProperty(fc.string({ maxLength: 12 }), async (id) => {
          const res = await c.get(`${endpoint.path}/${encodeURIComponent(id)}`);
          await check(res, `GET /${id}`);
        }),
        Math.ceil(RUNS / 2),
      );
    });
  }
});
