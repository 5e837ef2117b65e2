// A device as the API answers it: online/offline and the last heartbeat, with its parcels.
import { isoTime, isoTimeOrNull } from '../../platform/dates.js';
import type { DeviceRow } from './device.repository.js';

export interface DeviceAnswer {
  id: number;
  code: string;
  name: string;
  zone_id: number | null;
  parcel_ids: number[];
  heartbeat_timeout_seconds: number;
  dev_eui: string | null;
  status: 'online' | 'offline';
  last_heartbeat: string | null;
  created_at: string;
  updated_at: string;
}

export function toDeviceAnswer(row: DeviceRow, parcelIds: number[]): DeviceAnswer {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    zone_id: row.zone_id,
    parcel_ids: parcelIds,
    heartbeat_timeout_seconds: row.heartbeat_timeout_seconds,
    dev_eui: row.dev_eui,
    status: row.is_online === 1 ? 'online' : 'offline',
    last_heartbeat: isoTimeOrNull(row.last_heartbeat_at),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}
