// IoT devices, rules, rule states, readings and alerts; harvest batches.
import type { Generated } from 'kysely';

export interface IotDevicesTable {
  id: Generated<number>;
  tenant_id: number;
  code: string;
  name: string;
  zone_id: number | null;
  heartbeat_timeout_seconds: number;
  last_heartbeat_at: number | null;
  /** 1 online, 0 offline (or never heard from). */
  is_online: number;
  offline_at: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface IotDeviceParcelsTable {
  tenant_id: number;
  device_id: number;
  parcel_id: number;
}

export interface IotRulesTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: number | null;
  zone_id: number | null;
  metric: string;
  operator: 'gt' | 'gte' | 'lt' | 'lte';
  threshold: number;
  severity: 'info' | 'warning' | 'critical';
  message: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface IotRuleStatesTable {
  tenant_id: number;
  rule_id: number;
  device_id: number;
  breached: number;
  last_recorded_at: number;
  updated_at: number;
}

export interface IotReadingsTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: number;
  metric: string;
  value: number;
  recorded_at: number;
  received_at: number;
}

/** A roll-up of one bucket of a device's metric (iot_readings_1m, _1h, _1d): avg = sum / count. */
export interface IotReadingRollupTable {
  tenant_id: number;
  device_id: number;
  metric: string;
  /** Epoch ms of the bucket's first instant. */
  bucket_start: number;
  min: number;
  max: number;
  sum: number;
  count: number;
}

export type AlertStatus = 'active' | 'resolved';

export interface IotAlertsTable {
  id: Generated<number>;
  tenant_id: number;
  rule_id: number;
  device_id: number;
  metric: string;
  value: number;
  threshold: number;
  operator: string;
  severity: string;
  message: string;
  recorded_at: number;
  created_at: number;
  status: Generated<AlertStatus>;
  resolved_at: number | null;
  acknowledged_at: number | null;
  acknowledged_by: number | null;
}

export interface HarvestBatchesTable {
  id: Generated<number>;
  tenant_id: number;
  parcel_id: number;
  crop_type_id: number;
  quantity_kg: number;
  harvested_at: number;
  notes: string | null;
  status: 'declared' | 'confirmed';
  declared_by: number | null;
  confirmed_by: number | null;
  confirmed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface IotTables {
  iot_devices: IotDevicesTable;
  iot_device_parcels: IotDeviceParcelsTable;
  iot_rules: IotRulesTable;
  iot_rule_states: IotRuleStatesTable;
  iot_readings: IotReadingsTable;
  iot_readings_1m: IotReadingRollupTable;
  iot_readings_1h: IotReadingRollupTable;
  iot_readings_1d: IotReadingRollupTable;
  iot_alerts: IotAlertsTable;
  harvest_batches: HarvestBatchesTable;
}
