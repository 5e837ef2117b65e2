// A harvest batch as the API answers it.
import { isoTime, isoTimeOrNull } from '../../platform/dates.js';
import type { BatchRow } from './harvest.repository.js';

export interface BatchAnswer {
  id: number;
  parcel_id: number;
  crop_type_id: number;
  quantity_kg: number;
  harvested_at: string;
  notes: string | null;
  status: 'declared' | 'confirmed';
  declared_by: number | null;
  confirmed_by: number | null;
  confirmed_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toBatchAnswer(row: BatchRow): BatchAnswer {
  return {
    id: row.id,
    parcel_id: row.parcel_id,
    crop_type_id: row.crop_type_id,
    quantity_kg: row.quantity_kg,
    harvested_at: isoTime(row.harvested_at),
    notes: row.notes,
    status: row.status,
    declared_by: row.declared_by,
    confirmed_by: row.confirmed_by,
    confirmed_at: isoTimeOrNull(row.confirmed_at),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}
