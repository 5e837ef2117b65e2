// The places the IoT tests put devices in, made through the API as a client would.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type ApiResponse, client, startTestApp, type TestApp } from './app.js';
import { loginToken, makeTenant, type TestTenant } from './factories.js';

export type Api = ReturnType<typeof client>;

/** A farm with two zones and three parcels. */
export async function makePlaces(api: Api) {
  const farm = (await api.post('/api/farms', { json: { name: 'North farm' } })).body[0];
  const zoneA = (await api.post('/api/zones', { json: { name: 'Greenhouse A', farm_id: farm.id } })).body[0];
  const zoneB = (await api.post('/api/zones', { json: { name: 'Orchard', farm_id: farm.id } })).body[0];
  const parcel = async (name: string, zone: number) =>
    (await api.post('/api/parcels', { json: { name, code: name, farm_id: farm.id, zone_id: zone } })).body[0];
  return {
    farm,
    zoneA,
    zoneB,
    parcels: [await parcel('P1', zoneA.id), await parcel('P2', zoneA.id), await parcel('P3', zoneB.id)],
  };
}

export interface IotFixture {
  t: TestApp;
  farm: TestTenant;
  /** The farm owner's client. */
  api: Api;
  /** The owner of another tenant. */
  otherApi: Api;
  places: Awaited<ReturnType<typeof makePlaces>>;
  /** A device in zone A, created through the API. */
  device(code: string, extra?: Record<string, unknown>): Promise<any>;
  send(readings: unknown[]): Promise<ApiResponse>;
}

/**
 * What every IoT test file starts with: an app on the dialect's database, a farm with its places, its
 * owner's client and another tenant's. Registers its own before/after; the fields are set once the
 * file's before hooks run.
 */
export function iotFixture(database: { url: string }): IotFixture {
  const f = {
    async device(code: string, extra: Record<string, unknown> = {}) {
      const res = await f.api.post('/api/iot/devices', {
        json: { code, zone_id: f.places.zoneA.id, ...extra },
      });
      assert.equal(res.status, 201, res.text);
      return res.body[0];
    },
    send: (readings: unknown[]) => f.api.post('/api/iot/readings', { json: { readings } }),
  } as IotFixture;
  before(async () => {
    f.t = await startTestApp(database.url);
    f.farm = await makeTenant(f.t.database.db);
    const other = await makeTenant(f.t.database.db);
    f.api = client(f.t.url, await loginToken(f.t.url, f.farm.code, f.farm.owner));
    f.otherApi = client(f.t.url, await loginToken(f.t.url, other.code, other.owner));
    f.places = await makePlaces(f.api);
  });
  after(() => f.t?.close());
  return f;
}
