// LoRaWAN ingestion on the wire: the network servers' events (documented, read by lorawan.ts), the
// answers, and the unclaimed devices with the adoption body.
import { Type } from 'typebox';
import { nameSchema } from '../../platform/http/openapi-components.js';
import { IsoTime, RefInput } from '../../platform/resource/fields.js';

export const DevEuiParam = Type.String({
  pattern: '^[0-9A-Fa-f]{16}$',
  description: 'The DevEUI: 16 hexadecimal digits, any case',
});

export const ChirpstackQuery = Type.Object(
  {
    event: Type.Optional(
      Type.String({
        description:
          'The event type, set by ChirpStack: up, status, join, ack, txack, log, location, integration (v3 also error)',
      }),
    ),
  },
  { additionalProperties: true },
);

export const ChirpstackEvent = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'A ChirpStack event in the JSON encoding: v4 (`deviceInfo.devEui`, `deduplicationId`, `time`, ' +
      '`object` for up, `batteryLevel` for status) or v3 (`devEUI`, `objectJSON`).',
  },
);

export const TtsMessage = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'A message of The Things Stack v3 webhook integration: `end_device_ids.dev_eui`, ' +
      '`correlation_ids` and one of uplink_message, join_accept, downlink_ack, … .',
  },
);

export const IngestStored = nameSchema(
  'LorawanIngestStored',
  Type.Object({
    data: Type.Object({
      event: Type.String({ description: 'The event type (ChirpStack) or message kind (TTS)' }),
      device_id: Type.Integer({ description: 'The device that has this DevEUI' }),
      readings: Type.Integer({ description: 'Readings stored from this event (0 for a duplicate)' }),
      duplicate: Type.Boolean({ description: 'true: this event was stored before; nothing was done' }),
    }),
  }),
);

export const IngestUnclaimed = nameSchema(
  'LorawanIngestUnclaimed',
  Type.Object({
    data: Type.Object({
      event: Type.String(),
      unclaimed: Type.Literal(true),
      dev_eui: Type.String({ description: 'Listed under /api/iot/unclaimed-devices for adoption' }),
    }),
  }),
);

export const UnclaimedDevice = Type.Object({
  dev_eui: Type.String({ description: '16 hexadecimal digits, lower case' }),
  source: Type.Union([Type.Literal('chirpstack'), Type.Literal('tts'), Type.Literal('mqtt')]),
  name: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'The name the network server knows it by',
  }),
  first_seen_at: IsoTime('First heard from'),
  last_seen_at: IsoTime('Last heard from'),
  seen_count: Type.Integer({ description: 'Events received from it' }),
  last_payload: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'The last decoded payload as JSON text, cut to 4 KB (so possibly not whole JSON)',
  }),
});

export const AdoptBody = Type.Object(
  {
    code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9_.:-]+$',
        description: 'Device code; default: the DevEUI',
      }),
    ),
    name: Type.Optional(
      Type.String({ maxLength: 255, description: 'Default: the network server’s name, else the DevEUI' }),
    ),
    zone_id: Type.Optional(RefInput('Zone of the device')),
    heartbeat_timeout_seconds: Type.Optional(
      Type.Integer({ minimum: 10, maximum: 604_800, description: 'Default 300' }),
    ),
  },
  { additionalProperties: true },
);
