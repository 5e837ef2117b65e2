import type { Static } from 'typebox';
import { containsText, type Filter } from '../../platform/db/records.js';
import { checkReferences } from '../../platform/db/references.js';
import { inTransaction } from '../../platform/db/scope.js';
import { type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import {
  definedOnly,
  imagesToJson,
  optional,
  parseStatus,
  refOrNull,
  searchTerms,
} from '../../platform/http/fields.js';
import type { PageQuery, RequestContext } from '../../platform/http/resource.js';
import {
  type CropRow,
  type CropValues,
  deleteCrop,
  findCropRow,
  insertCrop,
  listCropRows,
  updateCrop,
} from './crop.repository.js';
import type { Crop, CropCreate, CropListItem, CropQuery, CropUpdate } from './crop.schemas.js';

type CropInput = Static<typeof CropUpdate>;

export function toCropListItem(row: CropRow): Static<typeof CropListItem> {
  return { ...common(row), image: row.image };
}

export function toCrop(row: CropRow): Static<typeof Crop> {
  return { ...common(row), images: row.images, full_description: row.full_description };
}

function common(row: CropRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    location: null,
    crop_type: row.crop_type_id,
    category_id: row.category_id,
    sku: row.sku,
    code: row.code,
    price: Number(row.price),
    status: row.status === 1,
  };
}

function toValues(input: CropInput): CropValues {
  return definedOnly({
    name: input.name,
    description: input.description,
    crop_type_id: refOrNull(input.crop_type),
    category_id: refOrNull(input.category_id),
    image: input.image,
    images: optional(input.images, imagesToJson),
    full_description: input.full_description,
    sku: input.sku,
    code: input.code,
    price: input.price,
    status: optional(input.status, parseStatus),
  });
}

async function checkCropReferences(ctx: RequestContext, values: CropValues): Promise<void> {
  const errors: FieldError[] = await checkReferences(ctx.scope, [
    { field: 'crop_type', table: 'crop_types', id: values.crop_type_id },
    { field: 'category_id', table: 'product_categories', id: values.category_id },
  ]);
  if (errors.length > 0) throw validationFailed(errors);
}

export async function listCrops(ctx: RequestContext, query: PageQuery & Static<typeof CropQuery>) {
  const { terms, byKey } = searchTerms(query.search);
  const filters: Filter[] = [];
  for (const column of ['name', 'code', 'sku'] as const) {
    const term = byKey[column];
    if (term !== undefined) filters.push(containsText(ctx.scope, `crops.${column}`, term));
  }
  if (byKey.price !== undefined) {
    const price = /^\d{1,15}$/.test(byKey.price) ? Number(byKey.price) : -1;
    filters.push((eb) => eb('crops.price', '=', price));
  }
  for (const term of terms) {
    const [name, code, sku] = ['name', 'code', 'sku'].map((c) => containsText(ctx.scope, `crops.${c}`, term));
    filters.push((eb) => eb.or([name!(eb), code!(eb), sku!(eb)]));
  }
  const { rows, total } = await listCropRows(ctx.scope, query, filters);
  return { items: rows.map(toCropListItem), total };
}

export async function getCrop(ctx: RequestContext, id: number) {
  const row = await findCropRow(ctx.scope, id);
  if (!row) throw notFound();
  return toCrop(row);
}

export async function createCrop(ctx: RequestContext, input: Static<typeof CropCreate>) {
  const values = toValues(input);
  await checkCropReferences(ctx, values);
  return inTransaction(ctx.scope, async (scope) => {
    const id = await insertCrop(scope, values, ctx.clock.now());
    return getCrop({ ...ctx, scope }, id);
  });
}

export async function updateCropById(ctx: RequestContext, id: number, input: CropInput) {
  return inTransaction(ctx.scope, async (scope) => {
    const tx = { ...ctx, scope };
    if (!(await findCropRow(scope, id))) throw notFound();
    const values = toValues(input);
    await checkCropReferences(tx, values);
    await updateCrop(scope, id, values, ctx.clock.now());
    return getCrop(tx, id);
  });
}

export async function removeCrop(ctx: RequestContext, id: number): Promise<void> {
  if (!(await deleteCrop(ctx.scope, id, ctx.clock.now()))) throw notFound();
}
