import type { Static } from 'typebox';
import { inTransaction } from '../../platform/db/scope.js';
import { type AppError, conflict, type FieldError } from '../../platform/errors.js';
import type { RequestContext } from '../../platform/resource/context.js';
import {
  definedOnly,
  imagesToJson,
  optional,
  parseStatus,
  refOrNull,
} from '../../platform/resource/input.js';
import { type RequestColumns, type Row, recordService } from '../../platform/resource/record-service.js';
import { farmContents, parcelsIn } from './places.repository.js';
import type { BlockInput, FarmInput, ParcelInput, PlaceQuery } from './places.schemas.js';

const asText = (value: string | number | undefined) => (value === undefined ? undefined : String(value));

/** The farm object of spec 2.7 (also nested in seasons). */
export function presentFarm(row: Row<'farms'>) {
  return {
    id: row.id,
    name: row.name,
    surface: row.surface,
    lat: row.lat,
    lng: row.lng,
    address: row.address,
    published: row.published,
    ownership: row.ownership,
    description: row.description,
    order: row.order,
    avatar: row.avatar,
    tenant_id: row.tenant_id,
    created_by: row.created_by,
  };
}

/**
 * A place is deleted only when nothing lives in it any more (a farm's blocks, zones and parcels, a
 * block's or zone's parcels): else a 409 that says what is left, so no record is left pointing at
 * a deleted place. A place that does not exist is a 404 first.
 */
function refusingInUse<S extends { get(ctx: RequestContext, id: number): Promise<unknown> }>(
  service: S & { remove(ctx: RequestContext, id: number): Promise<void> },
  inUse: (ctx: RequestContext, id: number) => Promise<AppError | null>,
): S {
  return {
    ...service,
    remove: (ctx: RequestContext, id: number) =>
      inTransaction(ctx.scope, async (scope) => {
        const tx: RequestContext = { ...ctx, scope };
        await service.get(tx, id);
        const refusal = await inUse(tx, id);
        if (refusal) throw refusal;
        await service.remove(tx, id);
      }),
  };
}

const farmRecords = recordService<
  'farms',
  Static<typeof FarmInput.create>,
  Static<typeof FarmInput.update>,
  object
>({
  table: 'farms',
  present: (_ctx, rows) => rows.map(presentFarm),
  toColumns: (input, errors) =>
    definedOnly({
      name: input.name,
      surface: asText(input.surface),
      lat: asText(input.lat),
      lng: asText(input.lng),
      address: input.address,
      published: optional(input.published, parseStatus),
      ownership: input.ownership,
      description: input.description,
      order: input.order,
      avatar: optional(input.avatar, (v) => imagesToJson('avatar', v, errors)),
    } satisfies RequestColumns<'farms'>),
  onCreate: (ctx, columns) => ({ ...columns, created_by: ctx.user.id }),
});

export const farmService = refusingInUse(farmRecords, async (ctx, id) => {
  const left = await farmContents(ctx.scope, id);
  return left.blocks + left.zones + left.parcels > 0 ? conflict('places.farm_in_use', left) : null;
});

/** A farm is required: on create it must be sent, and it can never be cleared. */
function requireFarm(columns: { farm_id?: number | null }, errors: FieldError[], creating: boolean) {
  if ((creating && columns.farm_id === undefined) || columns.farm_id === null) {
    errors.push({ field: 'farm_id', message: 'field.required' });
  }
}

/** Blocks and zones have the same columns. */
function placeService(table: 'blocks' | 'zones') {
  return recordService<
    'blocks' | 'zones',
    Static<typeof BlockInput.create>,
    Static<typeof BlockInput.update>,
    Static<typeof PlaceQuery>
  >({
    table,
    present: (_ctx, rows) => rows.map((row) => ({ id: row.id, name: row.name, farm_id: row.farm_id })),
    toColumns: (input) =>
      definedOnly({
        name: input.name,
        farm_id: refOrNull(input.farm_id),
      } satisfies RequestColumns<'blocks' | 'zones'>),
    references: (c) => [{ field: 'farm_id', table: 'farms', id: c.farm_id }],
    check: async (_ctx, c, errors, id) => requireFarm(c, errors, id === undefined),
    filters: (_ctx, { farm_id: farmId }) =>
      farmId === undefined ? [] : [(eb) => eb(`${table}.farm_id`, '=', farmId)],
  });
}

export const blockService = refusingInUse(placeService('blocks'), async (ctx, id) => {
  const parcels = await parcelsIn(ctx.scope, 'block_id', id);
  return parcels > 0 ? conflict('places.block_in_use', { parcels }) : null;
});
export const zoneService = refusingInUse(placeService('zones'), async (ctx, id) => {
  const parcels = await parcelsIn(ctx.scope, 'zone_id', id);
  return parcels > 0 ? conflict('places.zone_in_use', { parcels }) : null;
});

export const parcelService = recordService<
  'parcels',
  Static<typeof ParcelInput.create>,
  Static<typeof ParcelInput.update>,
  Static<typeof PlaceQuery>
>({
  table: 'parcels',
  present: (_ctx, rows) =>
    rows.map((row) => ({
      id: row.id,
      name: row.name,
      code: row.code,
      farm_id: row.farm_id,
      block_id: row.block_id,
      zone_id: row.zone_id,
      area: row.area === null ? null : Number(row.area),
    })),
  toColumns: (input) =>
    definedOnly({
      name: input.name,
      code: input.code,
      farm_id: refOrNull(input.farm_id),
      block_id: refOrNull(input.block_id),
      zone_id: refOrNull(input.zone_id),
      area: input.area,
    } satisfies RequestColumns<'parcels'>),
  references: (c) => [
    { field: 'farm_id', table: 'farms', id: c.farm_id },
    { field: 'block_id', table: 'blocks', id: c.block_id },
    { field: 'zone_id', table: 'zones', id: c.zone_id },
  ],
  check: async (_ctx, c, errors, id) => requireFarm(c, errors, id === undefined),
  filters: (_ctx, { farm_id: farmId }) =>
    farmId === undefined ? [] : [(eb) => eb('parcels.farm_id', '=', farmId)],
});
