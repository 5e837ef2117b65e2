// What still lives inside a place: a farm's blocks, zones and parcels, a block's or zone's parcels.
// Counted in the database (one count per kind), for the refusal to delete a place that is in use.
import { type Scope, selectScoped } from '../../platform/db/scope.js';

async function countLive(
  scope: Scope,
  table: 'blocks' | 'zones' | 'parcels',
  column: 'farm_id' | 'block_id' | 'zone_id',
  id: number,
): Promise<number> {
  // Every one of the three tables has farm_id; only parcels have block_id and zone_id (the
  // callers ask those of parcels only). The column is named through the generic table.
  const row = await selectScoped(scope, table as 'parcels')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where(column, '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function farmContents(scope: Scope, farmId: number) {
  return {
    blocks: await countLive(scope, 'blocks', 'farm_id', farmId),
    zones: await countLive(scope, 'zones', 'farm_id', farmId),
    parcels: await countLive(scope, 'parcels', 'farm_id', farmId),
  };
}

export function parcelsIn(scope: Scope, column: 'block_id' | 'zone_id', id: number): Promise<number> {
  return countLive(scope, 'parcels', column, id);
}
