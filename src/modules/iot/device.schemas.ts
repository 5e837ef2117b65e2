// IoT devices on the wire: the answer, create and change, and the heartbeat a device sends.
import { Type } from 'typebox';
import {
  Id,
  IsoTime,
  NullableId,
  NullableIsoTime,
  NullableText,
  RefInput,
} from '../../platform/resource/fields.js';

const DeviceCode = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_.:-]+$',
  description: 'Unique among the tenant’s devices: letters, digits, "_", ".", ":", "-"',
});
const HeartbeatTimeout = Type.Integer({
  minimum: 10,
  maximum: 604_800,
  description: 'Seconds of silence after which the device is offline (default 300)',
});
const DevEuiInput = (description: string) =>
  NullableText(64, `${description}: 16 hexadecimal digits, any case (answered in lower case)`);
const ParcelIds = Type.Array(Id(), { maxItems: 200, description: 'Parcels the device watches' });

export const Device = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  zone_id: NullableId(),
  parcel_ids: Type.Array(Type.Integer()),
  heartbeat_timeout_seconds: Type.Integer(),
  dev_eui: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'LoRaWAN DevEUI, 16 hexadecimal digits in lower case; null for other devices',
  }),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  last_heartbeat: NullableIsoTime('Last reading or heartbeat; null before the first'),
  created_at: IsoTime('Created'),
  updated_at: IsoTime('Last changed'),
});

export const DeviceCreate = Type.Object(
  {
    code: DeviceCode,
    name: Type.Optional(Type.String({ maxLength: 255, description: 'Defaults to the code' })),
    zone_id: Type.Optional(RefInput('Zone of the device')),
    parcel_ids: Type.Optional(ParcelIds),
    heartbeat_timeout_seconds: Type.Optional(HeartbeatTimeout),
    dev_eui: Type.Optional(DevEuiInput('LoRaWAN DevEUI, unique among the tenant’s devices')),
  },
  { additionalProperties: true },
);

export const DeviceUpdate = Type.Object(
  {
    code: Type.Optional(DeviceCode),
    name: Type.Optional(Type.String({ maxLength: 255 })),
    zone_id: Type.Optional(RefInput('Zone of the device; null clears')),
    parcel_ids: Type.Optional(ParcelIds),
    heartbeat_timeout_seconds: Type.Optional(HeartbeatTimeout),
    dev_eui: Type.Optional(DevEuiInput('LoRaWAN DevEUI; null clears')),
  },
  { additionalProperties: true },
);

export const HeartbeatBody = Type.Object({ device_code: DeviceCode }, { additionalProperties: true });
