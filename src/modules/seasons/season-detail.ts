// A season's detail in one statement: the season with the crop, block, farm and template it names,
// joined (soft-deleted ones too: an answer still names what it points at), instead of a read of
// the season and one more per kind. The rows come back split into what the presenter reads.
import { preparedQuery } from '../../platform/db/prepared.js';
import type { Row } from '../../platform/db/records.js';
import { type Scope, selectScoped } from '../../platform/db/scope.js';

export interface SeasonLookups {
  crops: Map<number, Pick<Row<'crops'>, 'name' | 'code'>>;
  blocks: Map<number, Pick<Row<'blocks'>, 'id' | 'name'>>;
  farms: Map<number, Row<'farms'>>;
  templates: Map<number, Pick<Row<'season_templates'>, 'name'>>;
}

const FARM_COLUMNS = [
  'name',
  'surface',
  'lat',
  'lng',
  'address',
  'published',
  'ownership',
  'description',
  'order',
  'avatar',
  'tenant_id',
  'created_by',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;

const detailQuery = preparedQuery((db, p: { tenantId: number; id: number }) =>
  selectScoped({ db, tenantId: p.tenantId }, 'seasons')
    .leftJoin('crops', (j) =>
      j.onRef('crops.tenant_id', '=', 'seasons.tenant_id').onRef('crops.id', '=', 'seasons.crop_id'),
    )
    .leftJoin('blocks', (j) =>
      j.onRef('blocks.tenant_id', '=', 'seasons.tenant_id').onRef('blocks.id', '=', 'seasons.block_id'),
    )
    .leftJoin('farms', (j) =>
      j.onRef('farms.tenant_id', '=', 'seasons.tenant_id').onRef('farms.id', '=', 'seasons.farm_id'),
    )
    .leftJoin('season_templates', (j) =>
      j
        .onRef('season_templates.tenant_id', '=', 'seasons.tenant_id')
        .onRef('season_templates.id', '=', 'seasons.season_template_id'),
    )
    .selectAll('seasons')
    .select([
      'crops.id as crop_row_id',
      'crops.name as crop_row_name',
      'crops.code as crop_row_code',
      'blocks.id as block_row_id',
      'blocks.name as block_row_name',
      'season_templates.id as template_row_id',
      'season_templates.name as template_row_name',
      'farms.id as farm_row_id',
      ...FARM_COLUMNS.map((column) => `farms.${column} as farm_row_${column}` as const),
    ])
    .where('seasons.id', '=', p.id)
    .where('seasons.deleted_at', 'is', null),
);

type Joined = Row<'seasons'> & Record<string, unknown>;

/** The live season and what it names, or undefined when there is no such season. */
export async function findSeasonDetail(
  scope: Scope,
  id: number,
): Promise<{ row: Row<'seasons'>; lookups: SeasonLookups } | undefined> {
  const [joined] = (await detailQuery.all(scope.db, { tenantId: scope.tenantId, id })) as Joined[];
  if (joined === undefined) return undefined;
  const lookups: SeasonLookups = {
    crops: new Map(),
    blocks: new Map(),
    farms: new Map(),
    templates: new Map(),
  };
  const row: Record<string, unknown> = {};
  const farm: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(joined)) {
    if (key.startsWith('farm_row_')) farm[key.slice('farm_row_'.length)] = value;
    else if (!key.endsWith('_row_id') && !/^(crop|block|template)_row_/.test(key)) row[key] = value;
  }
  if (typeof joined.crop_row_id === 'number') {
    lookups.crops.set(joined.crop_row_id, {
      name: joined.crop_row_name as string,
      code: joined.crop_row_code as string,
    });
  }
  if (typeof joined.block_row_id === 'number') {
    lookups.blocks.set(joined.block_row_id, {
      id: joined.block_row_id,
      name: joined.block_row_name as string,
    });
  }
  if (typeof joined.template_row_id === 'number') {
    lookups.templates.set(joined.template_row_id, { name: joined.template_row_name as string });
  }
  if (typeof farm.id === 'number') lookups.farms.set(farm.id, farm as unknown as Row<'farms'>);
  return { row: row as unknown as Row<'seasons'>, lookups };
}
