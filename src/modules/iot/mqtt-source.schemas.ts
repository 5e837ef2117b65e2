// MQTT sources on the wire: the answer (never the password), create and change.
import { Type } from 'typebox';
import { IsoTime, NullableIsoTime, NullableText, Text } from '../../platform/resource/fields.js';

export const MAX_TOPICS = 20;

const Format = Type.Union([Type.Literal('chirpstack'), Type.Literal('tts'), Type.Literal('furrow')], {
  description:
    'How messages are read: furrow (topic .../{device_code}, payload {"metric": value, ...} or ' +
    '{"readings": [...]}), chirpstack (its MQTT integration) or tts (The Things Stack uplinks)',
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'mqtt://host:port or mqtts://host:port (default ports 1883 and 8883); the host must resolve to public addresses',
});
const Topics = Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
  minItems: 1,
  maxItems: MAX_TOPICS,
  description: `1 to ${MAX_TOPICS} topic filters ("+" one level, "#" the rest), subscribed with QoS 1; no two may overlap`,
});
const Username = NullableText(255, 'User name at the broker; null for none');
const Password = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 1024,
  description:
    'Password at the broker: stored encrypted, never answered. Omitted on change: kept; null: removed',
});
const Enabled = Type.Boolean({ description: 'false: no worker subscribes (default true)' });

export const MqttSource = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  url: Type.String(),
  username: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
  has_password: Type.Boolean({ description: 'Whether a password is stored (it is never answered)' }),
  topics: Type.Array(Type.String()),
  format: Format,
  enabled: Type.Boolean(),
  connected: Type.Boolean({ description: 'A worker holds this source and is connected to the broker' }),
  last_message_at: NullableIsoTime('When the last message arrived (to the second); null before the first'),
  last_error: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'The last connection or message problem, in short; null when none since connecting',
  }),
  created_at: IsoTime('Created'),
  updated_at: IsoTime('Last changed'),
});

export const MqttSourceCreate = Type.Object(
  {
    name: Text(255, 'What the broker is, e.g. "Farm LoRaWAN server"'),
    url: Url,
    username: Type.Optional(Username),
    password: Type.Optional(Password),
    topics: Topics,
    format: Format,
    enabled: Type.Optional(Enabled),
  },
  { additionalProperties: true },
);

export const MqttSourceUpdate = Type.Object(
  {
    name: Type.Optional(Text(255)),
    url: Type.Optional(Url),
    username: Type.Optional(Username),
    password: Type.Optional(Password),
    topics: Type.Optional(Topics),
    format: Type.Optional(Format),
    enabled: Type.Optional(Enabled),
  },
  { additionalProperties: true },
);
