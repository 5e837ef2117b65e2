import type { Static } from 'typebox';
import { definedOnly, refOrNull } from '../../platform/resource/input.js';
import {
  checkParentCycle,
  type RequestColumns,
  recordService,
} from '../../platform/resource/record-service.js';
import type { CropTypeCreate, CropTypeUpdate } from './crop-type.schemas.js';

export const cropTypeService = recordService<
  'crop_types',
  Static<typeof CropTypeCreate>,
  Static<typeof CropTypeUpdate>,
  object
>({
  table: 'crop_types',
  present: (_ctx, rows) =>
    rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      parent_id: row.parent_id ?? 0,
      images: row.images,
    })),
  toColumns: (input) =>
    definedOnly({
      name: input.name,
      description: input.description,
      parent_id: refOrNull(input.parent_id),
      images: input.images,
    } satisfies RequestColumns<'crop_types'>),
  references: (c) => [{ field: 'parent_id', table: 'crop_types', id: c.parent_id }],
  check: (ctx, c, errors, id) => checkParentCycle(ctx, 'crop_types', id, c.parent_id, errors),
});
