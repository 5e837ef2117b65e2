import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, type TestTenant } from '../../../test/support/factories.js';
import { type Graph, seedGraph } from '../../../test/support/resources.js';
import { checkReferences } from './references.js';

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
});
