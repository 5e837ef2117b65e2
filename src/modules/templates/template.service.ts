import type { Static } from 'typebox';
import { columnFilter } from '../../platform/db/keyed-filters.js';
import { containsText, type Filter, findByIds } from '../../platform/db/records.js';
import type { RequestContext } from '../../platform/resource/context.js';
import { dateRange, definedOnly, refOrNull, searchTerms } from '../../platform/resource/input.js';
import { type RequestColumns, type Row, recordService } from '../../platform/resource/record-service.js';
import type { TemplateCreate, TemplateQuery } from './template.schemas.js';

async function present(ctx: RequestContext, rows: Row<'season_templates'>[]) {
  const crops = await findByIds(
    ctx.scope,
    'crops',
    rows.map((r) => r.crop_id),
  );
  const blocks = await findByIds(
    ctx.scope,
    'blocks',
    rows.map((r) => r.block_id),
  );
  return rows.map((row) => {
    const crop = crops.get(row.crop_id);
    const block = row.block_id === null ? undefined : blocks.get(row.block_id);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      crop_type: row.crop_type,
      crop_id: row.crop_id,
      crop: { id: row.crop_id, name: crop?.name ?? '' },
      order: row.order,
      block_id: row.block_id,
      block: block ? { id: block.id, name: block.name } : null,
    };
  });
}

/** Search terms and created-at range (templates have no dates of their own). */
export function templateFilters(
  ctx: RequestContext,
  query: Static<typeof TemplateQuery>,
): Filter<'season_templates'>[] {
  const filters: Filter<'season_templates'>[] = [];
  const { terms, byKey } = searchTerms(query.search);
  for (const term of [...terms, ...Object.values(byKey)]) {
    filters.push(containsText(ctx.scope, 'season_templates', ['name'], term));
  }
  const { from, to } = dateRange(query);
  if (from !== undefined) filters.push(columnFilter(ctx.scope, 'season_templates', 'created_at', '>=', from));
  if (to !== undefined) filters.push(columnFilter(ctx.scope, 'season_templates', 'created_at', '<=', to));
  return filters;
}

type Create = Static<typeof TemplateCreate>;

export const templateService = recordService<
  'season_templates',
  Create,
  Create,
  Static<typeof TemplateQuery>
>({
  table: 'season_templates',
  present,
  toColumns: (input) =>
    definedOnly({
      name: input.name,
      crop_id: input.crop_id,
      description: input.description,
      crop_type: input.crop_type,
      order: input.order,
      block_id: refOrNull(input.block_id),
    } satisfies RequestColumns<'season_templates'>),
  references: (c) => [
    // crop_id is required: 0 or null names no crop and is refused like an unknown id.
    { field: 'crop_id', table: 'crops', id: c.crop_id === null ? 0 : c.crop_id },
    { field: 'block_id', table: 'blocks', id: c.block_id },
  ],
  filters: templateFilters,
});
