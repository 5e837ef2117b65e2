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
  /** LoRaWAN DevEUI, 16 hex digits in lower case; null for devices that are not LoRaWAN. */
  dev_eui: string | null;
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
  /** The value must be back past this to resolve an alert; null: the threshold itself. */
  clear_threshold: number | null;
  /** How long the value must stay beyond the threshold before an alert is raised. */
  min_duration_seconds: Generated<number>;
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
  /** recorded_at of the first reading of a breach not yet min_duration long; null otherwise. */
  pending_since: number | null;
  /** The alert this rule has active on this device, if any. */
  active_alert_id: number | null;
  updated_at: number;
}

/** A network-server or broker event already stored (ChirpStack deduplicationId, TTS correlation id). */
export interface IotIngestKeysTable {
  tenant_id: number;
  ingest_key: string;
  created_at: number;
}

/** A device data arrived for that no live device claims, listed for adoption. */
export interface IotUnclaimedDevicesTable {
  tenant_id: number;
  dev_eui: string;
  source: 'chirpstack' | 'tts' | 'mqtt';
  name: string | null;
  first_seen_at: number;
  last_seen_at: number;
  seen_count: number;
  /** The last decoded payload, JSON text cut to 4 KB. */
  last_payload: string | null;
}

export type MqttFormat = 'chirpstack' | 'tts' | 'furrow';

export interface IotMqttSourcesTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  url: string;
  username: string | null;
  /** Encrypted with the service's secret key. */
  password_encrypted: string | null;
  /** JSON array of topic filters. */
  topics: string;
  format: MqttFormat;
  enabled: Generated<number>;
  connected: Generated<number>;
  last_message_at: number | null;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
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
  iot_ingest_keys: IotIngestKeysTable;
  iot_unclaimed_devices: IotUnclaimedDevicesTable;
  iot_mqtt_sources: IotMqttSourcesTable;
  harvest_batches: HarvestBatchesTable;
}
