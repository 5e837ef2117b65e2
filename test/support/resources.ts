// Helpers for the resource tests: a graph of reference records created through the API, the
// error-shape check, and key sets of the specification's tables.
import assert from 'node:assert/strict';
import { ERROR_CODES, type ErrorCode, isErrorCode } from '../../src/platform/errors.js';
import type { client } from './app.js';

export type Client = ReturnType<typeof client>;

export interface Graph {
  farm: number;
  block: number;
  zone: number;
  parcel: number;
  cropType: number;
  category: number;
  crop: number;
  template: number;
  season: number;
  diaryCategory: number;
  subcategory: number;
  task: number;
}

/** Creates one record of every kind through the API and answers their ids. */
export async function seedGraph(c: Client): Promise<Graph> {
  const make = async (path: string, json: Record<string, unknown>): Promise<number> => {
    const res = await c.post(path, { json });
    assert.equal(res.status, 201, `${path}: ${res.text}`);
    return Array.isArray(res.body) ? res.body[0].id : res.body.data.id;
  };
  const farm = await make('/api/farms', { name: 'Seed farm' });
  const block = await make('/api/blocks', { name: 'Seed block', farm_id: farm });
  const zone = await make('/api/zones', { name: 'Seed zone', farm_id: farm });
  const parcel = await make('/api/parcels', {
    name: 'Seed parcel',
    farm_id: farm,
    block_id: block,
    zone_id: zone,
  });
  const cropType = await make('/api/croptype/croptype', { name: 'Seed type' });
  const category = await make('/api/productcategory/productcategory', { name: 'Seed category' });
  const crop = await make('/api/crop/crop', { name: 'Seed crop', code: 'SEED', crop_type: cropType });
  const template = await make('/api/template/season', { name: 'Seed template', crop_id: crop });
  const season = await make('/api/crop/season', { name: 'Seed season', crop_id: crop, farm_id: farm });
  const diaryCategory = await make('/api/diary/categories', { name: 'Seed stage' });
  const subcategory = await make('/api/diary/subcategories', {
    name: 'Seed sub',
    category_task_id: diaryCategory,
  });
  const task = await make('/api/diary/production', { name: 'Seed task', season_id: season });
  return {
    farm,
    block,
    zone,
    parcel,
    cropType,
    category,
    crop,
    template,
    season,
    diaryCategory,
    subcategory,
    task,
  };
}

/**
 * Asserts the API's error shape, a known machine code answered with its own status (and the one
 * expected, when given), and answers its meta.
 */
export function assertErrorShape(
  body: unknown,
  status: number,
  code?: ErrorCode,
): { status_code: number; message: string; code: ErrorCode; errors?: { field: string; message: string }[] } {
  assert.ok(Array.isArray(body), `error body is an array: ${JSON.stringify(body)}`);
  assert.equal(body.length, 1);
  const [entry] = body as [{ meta: { status_code: number; message: string; code: unknown }; data: unknown }];
  assert.deepEqual(Object.keys(entry).sort(), ['data', 'meta']);
  assert.deepEqual(entry.data, []);
  assert.equal(entry.meta.status_code, status);
  assert.equal(typeof entry.meta.message, 'string');
  assert.ok(isErrorCode(entry.meta.code), `known meta.code: ${JSON.stringify(entry.meta)}`);
  assert.equal(ERROR_CODES[entry.meta.code], status, `${entry.meta.code} is answered with its own status`);
  if (code !== undefined) assert.equal(entry.meta.code, code, JSON.stringify(entry.meta));
  return entry.meta as ReturnType<typeof assertErrorShape>;
}

/** The fields named by a 422, sorted. */
export function invalidFields(body: unknown): string[] {
  const meta = assertErrorShape(body, 422);
  return (meta.errors ?? []).map((e) => e.field).sort();
}

export const keys = (record: unknown) => Object.keys(record as object).sort();
export const sorted = (list: string[]) => [...list].sort();

const SEASON_COMMON = [
  'id',
  'name',
  'start_date',
  'end_date',
  'description',
  'season_template_id',
  'crop_id',
  'status',
  'template_name',
  'image',
  'code',
  'season_custom_field1',
  'season_custom_field2',
  'season_custom_field3',
  'season_custom_field4',
  'season_custom_field5',
  'block_id',
  'block',
  'farm_id',
  'farm',
  'amount',
  'area',
];
const CROP_COMMON = [
  'id',
  'name',
  'description',
  'location',
  'crop_type',
  'category_id',
  'sku',
  'code',
  'price',
  'status',
];

/** Field sets of the specification's tables (and DESIGN's reference data), list and detail forms. */
export const FIELDS = {
  cropList: sorted([...CROP_COMMON, 'image']),
  cropDetail: sorted([...CROP_COMMON, 'images', 'full_description']),
  cropType: sorted(['id', 'name', 'description', 'parent_id', 'images']),
  category: sorted(['id', 'name', 'code', 'description', 'status', 'parent_id']),
  task: sorted([
    'id',
    'name',
    'start',
    'end',
    'description',
    'images',
    'location',
    'category_task_id',
    'category',
    'assigned_to',
    'assigned',
    'season_id',
    'season',
    'user_id',
    'user',
    'sub_cates',
    'amount',
    'done_at',
    'done_by',
    'overdue',
  ]),
  seasonList: sorted([...SEASON_COMMON, 'crop_code', 'crop_name']),
  seasonDetail: sorted([
    ...SEASON_COMMON,
    'images',
    'full_description',
    'note_private',
    'warning_info',
    'promotion_info',
    'manufacturers',
    'vendors',
    'product_id',
    'attach_files',
    'crop',
    'count_temp',
    'temp_from',
    'temp_to',
  ]),
  template: sorted([
    'id',
    'name',
    'description',
    'crop_type',
    'crop_id',
    'crop',
    'order',
    'block_id',
    'block',
  ]),
  farm: sorted([
    'id',
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
  ]),
  block: sorted(['id', 'name', 'farm_id']),
  parcel: sorted(['id', 'name', 'code', 'farm_id', 'block_id', 'zone_id', 'area']),
  diaryCategory: sorted(['id', 'name']),
  subcategory: sorted(['id', 'name', 'category_task_id']),
  user: sorted(['id', 'name', 'firstname', 'lastname', 'picture', 'username', 'role', 'language', 'email']),
  taskUser: sorted(['id', 'name', 'firstname', 'lastname', 'picture']),
};
