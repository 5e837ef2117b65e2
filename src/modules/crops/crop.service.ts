import type { Static } from 'typebox';
import { columnFilter } from '../../platform/db/keyed-filters.js';
import { containsText, type Filter } from '../../platform/db/records.js';
import {
  definedOnly,
  imagesToJson,
  optional,
  parseStatus,
  refOrNull,
  searchTerms,
} from '../../platform/resource/input.js';
import { type RequestColumns, type Row, recordService } from '../../platform/resource/record-service.js';
import type { CropCreate, CropQuery, CropUpdate } from './crop.schemas.js';

// The form's fields are assigned onto the common ones: an object spread here sends every answer to
// V8's old generation on Node 20, which costs a third of the detail route's throughput and grows the
// heap under load (bench/README.md).
function present(row: Row<'crops'>, form: 'list' | 'detail') {
  const common = {
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
  return form === 'list'
    ? Object.assign(common, { image: row.image })
    : Object.assign(common, { images: row.images, full_description: row.full_description });
}

export const cropService = recordService<
  'crops',
  Static<typeof CropCreate>,
  Static<typeof CropUpdate>,
  Static<typeof CropQuery>
>({
  table: 'crops',
  present: (_ctx, rows, form) => rows.map((row) => present(row, form)),
  toColumns: (input, errors) =>
    definedOnly({
      name: input.name,
      description: input.description,
      crop_type_id: refOrNull(input.crop_type),
      category_id: refOrNull(input.category_id),
      image: input.image,
      images: optional(input.images, (v) => imagesToJson('images', v, errors)),
      full_description: input.full_description,
      sku: input.sku,
      code: input.code,
      price: input.price,
      status: optional(input.status, parseStatus),
    } satisfies RequestColumns<'crops'>),
  references: (c) => [
    { field: 'crop_type', table: 'crop_types', id: c.crop_type_id },
    { field: 'category_id', table: 'product_categories', id: c.category_id },
  ],
  filters: (ctx, query) => {
    const { terms, byKey } = searchTerms(query.search);
    const filters: Filter<'crops'>[] = [];
    for (const column of ['name', 'code', 'sku'] as const) {
      const term = byKey[column];
      if (term !== undefined) filters.push(containsText(ctx.scope, 'crops', [column], term));
    }
    if (byKey.price !== undefined) {
      // search[price] is an exact price; a value that is not a whole number matches nothing.
      const price = /^\d{1,15}$/.test(byKey.price) ? Number(byKey.price) : -1;
      filters.push(columnFilter(ctx.scope, 'crops', 'price', '=', price));
    }
    for (const term of terms) filters.push(containsText(ctx.scope, 'crops', ['name', 'code', 'sku'], term));
    if (query.status !== undefined) {
      const status = parseStatus(query.status);
      filters.push(columnFilter(ctx.scope, 'crops', 'status', '=', status));
    }
    if (query.category_id !== undefined) {
      const id = query.category_id;
      filters.push(columnFilter(ctx.scope, 'crops', 'category_id', '=', id));
    }
    if (query.crop_type !== undefined) {
      const id = query.crop_type;
      filters.push(columnFilter(ctx.scope, 'crops', 'crop_type_id', '=', id));
    }
    return filters;
  },
});
