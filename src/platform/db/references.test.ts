import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, type TestTenant } from '../../../test/support/factories.js';
import { type Graph, seedGraph } from '../../../test/support/resources.js';
import { insertRecordRowIf } from './records.js';
import { checkReferences, liveIdsOf, type Reference } from './references.js';

forEachDialect('checkReferences', (database) => {
  let t: TestApp;
  let mine: TestTenant;
  let g: Graph;
  let theirs: Graph;
  let deletedParcel: number;

  before(async () => {
    t = await startTestApp(database.url);
    mine = await makeTenant(t.database.db);
    const other = await makeTenant(t.database.db);
    const c = client(t.url, await loginToken(t.url, mine.code, mine.owner));
    g = await seedGraph(c);
    theirs = await seedGraph(client(t.url, await loginToken(t.url, other.code, other.owner)));
    deletedParcel = (await c.post('/api/parcels', { json: { name: 'gone', farm_id: g.farm } })).body[0].id;
    await c.delete(`/api/parcels/${deletedParcel}`);
  });
  after(() => t.close());

  const scope = () => ({ db: t.database.db, tenantId: mine.id });

  it('answers no errors for live records of the tenant, and skips null and undefined', async () => {
    const errors = await checkReferences(scope(), [
      { field: 'zone_id', table: 'zones', id: g.zone },
      { field: 'parcel_ids', table: 'parcels', id: [g.parcel] },
      { field: 'crop_type_id', table: 'crop_types', id: g.cropType },
      { field: 'season_id', table: 'seasons', id: null },
      { field: 'farm_id', table: 'farms', id: undefined },
      { field: 'user_id', table: 'users', id: mine.owner.id },
    ]);
    assert.deepEqual(errors, []);
  });

  it('names each field whose id is unknown, deleted, of another tenant or out of range, once', async () => {
    const errors = await checkReferences(scope(), [
      { field: 'zone_id', table: 'zones', id: theirs.zone },
      { field: 'parcel_ids', table: 'parcels', id: [g.parcel, deletedParcel, theirs.parcel] },
      { field: 'parcel_id', table: 'parcels', id: deletedParcel },
      { field: 'crop_type_id', table: 'crop_types', id: 2 ** 40 },
      { field: 'block_id', table: 'blocks', id: 0 },
    ]);
    assert.deepEqual(errors, [
      { field: 'zone_id', message: 'field.not_found' },
      { field: 'parcel_ids', message: 'field.not_found' },
      { field: 'parcel_id', message: 'field.not_found' },
      { field: 'crop_type_id', message: 'field.not_found' },
      { field: 'block_id', message: 'field.not_found' },
    ]);
  });

  // The same rules, checked by a write in its own statement (INSERT … SELECT … WHERE they are live).
  const writesWith = async (references: Reference[]) => {
    const live = liveIdsOf(references);
    if (live !== false && live.length === 0) return 'nothing to check';
    const row = await insertRecordRowIf(
      scope(),
      'crop_types',
      { name: 'probe', parent_id: null } as never,
      1,
      live,
    );
    if (row) await sql`delete from crop_types where id = ${row.id}`.execute(t.database.db);
    return row === undefined ? 'refused' : 'written';
  };

  it('lets a write check its references in its own statement, by the same rules', async () => {
    assert.equal(await writesWith([{ field: 'farm_id', table: 'farms', id: null }]), 'nothing to check');
    assert.equal(
      await writesWith([
        { field: 'zone_id', table: 'zones', id: g.zone },
        { field: 'parcel_ids', table: 'parcels', id: [g.parcel, g.parcel] },
        { field: 'crop_type_id', table: 'crop_types', id: g.cropType },
        { field: 'season_id', table: 'seasons', id: null },
        { field: 'user_id', table: 'users', id: mine.owner.id },
      ]),
      'written',
    );
    for (const bad of [
      { field: 'zone_id', table: 'zones', id: theirs.zone },
      { field: 'parcel_ids', table: 'parcels', id: [g.parcel, deletedParcel] },
      { field: 'parcel_ids', table: 'parcels', id: [g.parcel, theirs.parcel] },
      { field: 'parcel_id', table: 'parcels', id: deletedParcel },
      { field: 'crop_type_id', table: 'crop_types', id: 2 ** 40 },
      { field: 'block_id', table: 'blocks', id: 0 },
    ] satisfies Reference[]) {
      assert.equal(
        await writesWith([{ field: 'zone_id', table: 'zones', id: g.zone }, bad]),
        'refused',
        bad.field,
      );
    }
    const probes = await sql<{
      n: number;
    }>`select count(*) as n from crop_types where name = 'probe'`.execute(t.database.db);
    assert.equal(Number(probes.rows[0]?.n), 0, 'a refused write leaves nothing');
  });

  it('writes each value to its own column, whatever the order and shape, past the texts it keeps', async () => {
    // Texts are kept per table by their columns (in order) and references; more shapes than are
    // kept (100 a table) start the keeping afresh. Every order of every set of columns with a
    // name, each with three sets of references: 147 shapes.
    const orders = (keys: string[]): string[][] =>
      keys.length === 0
        ? [[]]
        : keys.flatMap((k) => orders(keys.filter((o) => o !== k)).map((r) => [k, ...r]));
    const optional = ['description', 'parent_id', 'images'];
    const sets = [0, 1, 2, 3, 4, 5, 6, 7].map((bits) => [
      'name',
      ...optional.filter((_, i) => bits & (1 << i)),
    ]);
    const shapes = sets.flatMap(orders);
    const references: Reference[][] = [
      [],
      [{ field: 'zone_id', table: 'zones', id: g.zone }],
      [
        { field: 'farm_id', table: 'farms', id: g.farm },
        { field: 'zone_id', table: 'zones', id: g.zone },
      ],
    ];
    const expected: string[][] = [];
    let n = 0;
    for (const refs of references) {
      for (const keys of shapes) {
        n++;
        const value: Record<string, unknown> = {
          name: `probe ${n}`,
          description: `about ${n}`,
          parent_id: null,
          images: `[${n}]`,
        };
        const columns = Object.fromEntries(keys.map((k) => [k, value[k]]));
        const row = await insertRecordRowIf(scope(), 'crop_types', columns as never, n, liveIdsOf(refs));
        assert.ok(row, `shape ${n}`);
        assert.equal(Number(row.created_at), n);
        assert.equal(Number(row.tenant_id), mine.id);
        const got = [row.name, row.description, row.images];
        const want = [
          `probe ${n}`,
          keys.includes('description') ? `about ${n}` : '',
          keys.includes('images') ? `[${n}]` : null,
        ];
        assert.deepEqual(got, want, keys.join(','));
        expected.push(want as string[]);
      }
    }
    assert.equal(n, 147);
    const refused = await insertRecordRowIf(
      scope(),
      'crop_types',
      { description: 'x', name: 'probe refused' } as never,
      1,
      liveIdsOf([{ field: 'zone_id', table: 'zones', id: theirs.zone }]),
    );
    assert.equal(refused, undefined);
    const rows = await sql<{ name: string; description: string; images: string | null }>`select name,
      description, images from crop_types where name like 'probe %' order by id`.execute(t.database.db);
    assert.deepEqual(
      rows.rows.map((r) => [r.name, r.description, r.images]),
      expected,
    );
    await sql`delete from crop_types where name like 'probe %'`.execute(t.database.db);
  });
});
