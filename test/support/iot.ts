// The places the IoT tests put devices in, made through the API as a client would.
import type { client } from './app.js';

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
