import type { Static } from 'typebox';
import { definedOnly, optional, parseStatus, refOrNull } from '../../platform/resource/input.js';
import {
  checkParentCycle,
  type RequestColumns,
  recordService,
} from '../../platform/resource/record-service.js';
import type { CategoryCreate, CategoryUpdate } from './category.schemas.js';

export const categoryService = recordService<
  'product_categories',
  Static<typeof CategoryCreate>,
  Static<typeof CategoryUpdate>,
  object
>({
  table: 'product_categories',
  present: (_ctx, rows) =>
    rows.map((row) => ({
      id: row.id,
      name: row.name,
      code: row.code,
      description: row.description,
      status: row.status,
      parent_id: row.parent_id,
    })),
  toColumns: (input) =>
    definedOnly({
      name: input.name,
      code: input.code,
      description: input.description,
      status: optional(input.status, parseStatus),
      parent_id: refOrNull(input.parent_id),
    } satisfies RequestColumns<'product_categories'>),
  references: (c) => [{ field: 'parent_id', table: 'product_categories', id: c.parent_id }],
  check: (ctx, c, errors, id) => checkParentCycle(ctx, 'product_categories', id, c.parent_id, errors),
});
