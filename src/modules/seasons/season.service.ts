import type { Static } from 'typebox';
import { parseDate } from '../../platform/dates.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import { columnFilter, keyedFilter } from '../../platform/db/keyed-filters.js';
import { containsText, type Filter, findByIds, findLive } from '../../platform/db/records.js';
import type { FieldError } from '../../platform/errors.js';
import { validationFailed } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import type { RequestContext } from '../../platform/resource/context.js';
import {
  dateRange,
  definedOnly,
  imagesToJson,
  jsonArrayToText,
  optional,
  parseJsonArray,
  refOrNull,
  searchTerms,
} from '../../platform/resource/input.js';
import {
  type RecordColumns,
  type RequestColumns,
  type Row,
  recordService,
} from '../../platform/resource/record-service.js';
import { presentFarm } from '../places/places.service.js';
import type { SeasonCreate, SeasonQuery, SeasonUpdate } from './season.schemas.js';
import { findSeasonDetail, type SeasonLookups } from './season-detail.js';

type Input = Static<typeof SeasonCreate> | Static<typeof SeasonUpdate>;

async function lookupsOf(ctx: RequestContext, rows: Row<'seasons'>[]): Promise<SeasonLookups> {
  const [crops, blocks, farms, templates] = await Promise.all([
    findByIds(
      ctx.scope,
      'crops',
      rows.map((r) => r.crop_id),
    ),
    findByIds(
      ctx.scope,
      'blocks',
      rows.map((r) => r.block_id),
    ),
    findByIds(
      ctx.scope,
      'farms',
      rows.map((r) => r.farm_id),
    ),
    findByIds(
      ctx.scope,
      'season_templates',
      rows.map((r) => r.season_template_id),
    ),
  ]);
  return { crops, blocks, farms, templates };
}

async function present(ctx: RequestContext, rows: Row<'seasons'>[], form: 'list' | 'detail') {
  return presentWith(await lookupsOf(ctx, rows), rows, form);
}

function presentWith(
  { crops, blocks, farms, templates }: SeasonLookups,
  rows: Row<'seasons'>[],
  form: 'list' | 'detail',
) {
  return rows.map((row) => {
    const crop = crops.get(row.crop_id);
    const block = row.block_id === null ? undefined : blocks.get(row.block_id);
    const common = {
      id: row.id,
      name: row.name,
      start_date: row.start_date,
      end_date: row.end_date,
      description: row.description,
      season_template_id: row.season_template_id,
      crop_id: row.crop_id,
      status: row.status,
      template_name:
        row.season_template_id === null ? null : (templates.get(row.season_template_id)?.name ?? null),
      image: row.image,
      code: row.code,
      season_custom_field1: row.season_custom_field1,
      season_custom_field2: row.season_custom_field2,
      season_custom_field3: row.season_custom_field3,
      season_custom_field4: row.season_custom_field4,
      season_custom_field5: row.season_custom_field5,
      block_id: row.block_id,
      block: block ? { id: block.id, name: block.name } : null,
      farm_id: row.farm_id,
      farm: farmOf(row.farm_id === null ? undefined : farms.get(row.farm_id)),
      amount: numberOrNull(row.amount),
      area: numberOrNull(row.area),
    };
    // Assigned onto the common fields, not spread: see the crop presenter.
    if (form === 'list')
      return Object.assign(common, { crop_code: crop?.code ?? '', crop_name: crop?.name ?? '' });
    return Object.assign(common, {
      images: row.images,
      full_description: row.full_description,
      note_private: row.note_private,
      warning_info: row.warning_info,
      promotion_info: row.promotion_info,
      manufacturers: parseJsonArray(row.manufacturers),
      vendors: parseJsonArray(row.vendors),
      product_id: row.product_id,
      attach_files: row.attach_files === null ? null : parseJsonArray(row.attach_files),
      crop: { id: row.crop_id, name: crop?.name ?? '', code: crop?.code ?? '' },
      count_temp: row.count_temp,
      temp_from: row.temp_from,
      temp_to: row.temp_to,
    });
  });
}

const farmOf = (row: Row<'farms'> | undefined) => (row ? presentFarm(row) : null);
const numberOrNull = (value: number | null) => (value === null ? null : Number(value));

function toColumns(input: Input, errors: FieldError[]): RequestColumns<'seasons'> {
  const date = (field: 'start_date' | 'end_date') => {
    const value = input[field];
    if (value === undefined || value === null || value === '') return value === '' ? null : value;
    const parsed = parseDate(value);
    if (parsed === undefined) errors.push({ field, message: 'field.format', params: { format: 'date' } });
    return parsed;
  };
  const columns = definedOnly({
    name: input.name,
    crop_id: input.crop_id,
    start_date: date('start_date'),
    end_date: date('end_date'),
    description: input.description,
    season_template_id: refOrNull(input.season_template_id),
    status: input.status,
    image: input.image,
    images: optional(input.images, (v) => imagesToJson('images', v, errors)),
    full_description: input.full_description,
    note_private: input.note_private,
    warning_info: input.warning_info,
    promotion_info: input.promotion_info,
    manufacturers: optional(input.manufacturers, (v) => jsonArrayToText('manufacturers', v, errors)),
    vendors: optional(input.vendors, (v) => jsonArrayToText('vendors', v, errors)),
    attach_files: optional(input.attach_files, (v) =>
      v === null ? null : jsonArrayToText('attach_files', v, errors),
    ),
    product_id: input.product_id,
    // An empty code means "generate one" on create and "keep the current one" on update.
    code: input.code?.trim() === '' ? undefined : input.code?.trim(),
    season_custom_field1: input.season_custom_field1,
    season_custom_field2: input.season_custom_field2,
    season_custom_field3: input.season_custom_field3,
    season_custom_field4: input.season_custom_field4,
    season_custom_field5: input.season_custom_field5,
    block_id: refOrNull(input.block_id),
    farm_id: refOrNull(input.farm_id),
    amount: input.amount,
    area: input.area,
    count_temp: input.count_temp,
    temp_from: input.temp_from,
    temp_to: input.temp_to,
  } satisfies RequestColumns<'seasons'>);
  const { start_date: start, end_date: end } = columns;
  if (typeof start === 'string' && typeof end === 'string' && end < start) {
    errors.push({ field: 'end_date', message: 'field.invalid' });
  }
  return columns;
}

/** A code like S20260315-4fQx9k: the season's start day (or today) and random characters. */
function generatedCode(ctx: RequestContext, columns: RecordColumns<'seasons'>): string {
  const day =
    typeof columns.start_date === 'string'
      ? columns.start_date
      : new Date(ctx.clock.now()).toISOString().slice(0, 10);
  return `S${day.replace(/-/g, '')}-${randomBase62(6)}`;
}

function seasonFilters(ctx: RequestContext, query: Static<typeof SeasonQuery>): Filter<'seasons'>[] {
  const filters: Filter<'seasons'>[] = [];
  const { terms, byKey } = searchTerms(query.search);
  for (const term of terms) filters.push(containsText(ctx.scope, 'seasons', ['name', 'code'], term));
  for (const column of ['name', 'code'] as const) {
    const term = byKey[column];
    if (term !== undefined) filters.push(containsText(ctx.scope, 'seasons', [column], term));
  }
  for (const column of ['crop_id', 'farm_id'] as const) {
    const id = query[column];
    if (id !== undefined) filters.push(columnFilter(ctx.scope, 'seasons', column, '=', id));
  }
  // Overlap: the season starts before the range ends and ends after it starts (open ends match).
  const { from, to } = dateRange(query);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  if (to !== undefined) {
    filters.push(
      keyedFilter<'seasons'>(ctx.scope, 'season starts by', [day(to)], (eb, [v]) =>
        eb.or([eb('seasons.start_date', 'is', null), eb('seasons.start_date', '<=', v as string)]),
      ),
    );
  }
  if (from !== undefined) {
    filters.push(
      keyedFilter<'seasons'>(ctx.scope, 'season ends from', [day(from)], (eb, [v]) =>
        eb.or([eb('seasons.end_date', 'is', null), eb('seasons.end_date', '>=', v as string)]),
      ),
    );
  }
  return filters;
}

export const seasonService = recordService<
  'seasons',
  Static<typeof SeasonCreate>,
  Static<typeof SeasonUpdate>,
  Static<typeof SeasonQuery>
>({
  table: 'seasons',
  present,
  readDetail: async (ctx, id) => {
    const found = await findSeasonDetail(ctx.scope, id);
    return found && presentWith(found.lookups, [found.row], 'detail')[0];
  },
  toColumns: (input, errors) => toColumns(input, errors),
  // An update that sends one side of the range is compared with the stored other side.
  check: async (ctx, c, errors, id) => {
    if (id === undefined || (c.start_date === undefined) === (c.end_date === undefined)) return;
    const stored = await findLive(ctx.scope, 'seasons', id);
    const start = c.start_date === undefined ? stored?.start_date : c.start_date;
    const end = c.end_date === undefined ? stored?.end_date : c.end_date;
    if (typeof start === 'string' && typeof end === 'string' && end < start) {
      errors.push({ field: c.end_date === undefined ? 'start_date' : 'end_date', message: 'field.invalid' });
    }
  },
  onCreate: (ctx, columns) => ({
    status: 'Pending',
    ...columns,
    code: typeof columns.code === 'string' ? columns.code : generatedCode(ctx, columns),
  }),
  references: (c) => [
    { field: 'crop_id', table: 'crops', id: c.crop_id === null ? 0 : c.crop_id },
    { field: 'season_template_id', table: 'season_templates', id: c.season_template_id },
    { field: 'block_id', table: 'blocks', id: c.block_id },
    { field: 'farm_id', table: 'farms', id: c.farm_id },
  ],
  onWriteError: (err) => {
    if (isUniqueViolation(err)) throw validationFailed([{ field: 'code', message: 'field.taken' }]);
    throw err;
  },
  filters: seasonFilters,
});
