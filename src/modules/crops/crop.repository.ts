import type { Selectable } from 'kysely';
import {
  type Filter,
  findLive,
  insertRecord,
  listLive,
  type PageRequest,
  softDeleteRecord,
  updateRecord,
} from '../../platform/db/records.js';
import type { Scope } from '../../platform/db/scope.js';
import type { CropsTable } from '../../platform/db/tables/resources.js';

export type CropRow = Selectable<CropsTable>;
export type CropValues = Partial<
  Omit<CropRow, 'id' | 'tenant_id' | 'created_at' | 'updated_at' | 'deleted_at'>
>;

export const listCropRows = (scope: Scope, page: PageRequest, filters: Filter[]) =>
  listLive(scope, 'crops', page, filters);
export const findCropRow = (scope: Scope, id: number) => findLive(scope, 'crops', id);
export const insertCrop = (scope: Scope, values: CropValues, now: number) =>
  insertRecord(scope, 'crops', values, now);
export const updateCrop = (scope: Scope, id: number, values: CropValues, now: number) =>
  updateRecord(scope, 'crops', id, values, now);
export const deleteCrop = (scope: Scope, id: number, now: number) =>
  softDeleteRecord(scope, 'crops', id, now);
