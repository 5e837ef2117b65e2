// The `webhooks` section of /openapi.json: every message Furrow sends to a receiving URL, with its
// envelope, its data and the signature headers, as OpenAPI 3.1 describes outgoing requests.
import { EVENT_TYPES, type EventType, TEST_EVENT_TYPE } from './events.js';

type Schema = Record<string, unknown>;

const str = (description: string): Schema => ({ type: 'string', description });
const int = (description: string): Schema => ({ type: 'integer', description });
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type, 'null'] });

/** The data of each event kind, as the services emit it. */
const EVENT_DATA: Record<
  EventType | typeof TEST_EVENT_TYPE,
  { summary: string; schema: Schema; example: Schema }
> = {
  'iot.alert.raised': {
    summary: 'A sensor reading crossed a threshold rule',
    schema: {
      type: 'object',
      required: [
        'alert_id',
        'device_id',
        'device_code',
        'zone_id',
        'parcel_ids',
        'metric',
        'value',
        'threshold',
        'severity',
        'message',
      ],
      properties: {
        alert_id: int('The alert raised'),
        device_id: int('Device id'),
        device_code: str('Device code, unique per tenant'),
        zone_id: nullable(int('Zone of the device')),
        parcel_ids: { type: 'array', items: { type: 'integer' }, description: 'Parcels of the device' },
        metric: str('The metric read, e.g. soil_moisture'),
        value: { type: 'number', description: 'The value read' },
        threshold: { type: 'number', description: "The rule's threshold" },
        severity: { type: 'string', enum: ['info', 'warning', 'critical'] },
        message: str("The rule's message with its placeholders filled"),
        rule_id: int('The threshold rule'),
        recorded_at: {
          type: 'string',
          format: 'date-time',
          description: 'When the reading was taken (ISO 8601 UTC)',
        },
      },
    },
    example: {
      alert_id: 41,
      device_id: 7,
      device_code: 'soil-07',
      zone_id: 3,
      parcel_ids: [12],
      metric: 'soil_moisture',
      value: 11.5,
      threshold: 15,
      severity: 'warning',
      message: 'soil-07: soil_moisture 11.5 lt 15',
      rule_id: 2,
      recorded_at: '2026-05-04T06:30:00.000Z',
    },
  },
  'iot.alert.resolved': {
    summary: "A reading came back past the rule's clear threshold: the active alert is resolved",
    schema: {
      type: 'object',
      required: [
        'alert_id',
        'device_id',
        'device_code',
        'zone_id',
        'parcel_ids',
        'metric',
        'value',
        'threshold',
        'severity',
        'message',
        'rule_id',
        'recorded_at',
        'clear_threshold',
        'resolved_value',
        'resolved_at',
      ],
      properties: {
        alert_id: int('The alert resolved, as in its iot.alert.raised'),
        device_id: int('Device id'),
        device_code: str('Device code, unique per tenant'),
        zone_id: nullable(int('Zone of the device')),
        parcel_ids: { type: 'array', items: { type: 'integer' }, description: 'Parcels of the device' },
        metric: str('The metric read, e.g. soil_moisture'),
        value: { type: 'number', description: 'The value that raised the alert (as in iot.alert.raised)' },
        threshold: { type: 'number', description: "The rule's threshold when the alert was raised" },
        severity: { type: 'string', enum: ['info', 'warning', 'critical'] },
        message: str("The alert's message, as raised"),
        rule_id: int('The threshold rule'),
        recorded_at: {
          type: 'string',
          format: 'date-time',
          description: 'When the reading that raised the alert was taken (ISO 8601 UTC)',
        },
        clear_threshold: {
          type: 'number',
          description:
            "The rule's clear threshold (its threshold when it has none): readings back past it resolve",
        },
        resolved_value: { type: 'number', description: 'The value read that resolved the alert' },
        resolved_at: {
          type: 'string',
          format: 'date-time',
          description: "When that reading was taken (ISO 8601 UTC): the alert's resolved_at",
        },
      },
    },
    example: {
      alert_id: 41,
      device_id: 7,
      device_code: 'soil-07',
      zone_id: 3,
      parcel_ids: [12],
      metric: 'soil_moisture',
      value: 11.5,
      threshold: 15,
      severity: 'warning',
      message: 'soil-07: soil_moisture 11.5 lt 15',
      rule_id: 2,
      recorded_at: '2026-05-04T06:30:00.000Z',
      clear_threshold: 18,
      resolved_value: 19.2,
      resolved_at: '2026-05-04T09:10:00.000Z',
    },
  },
  'iot.device.offline': {
    summary: 'A device sent no reading or heartbeat for longer than its timeout',
    schema: {
      type: 'object',
      required: ['device_id', 'device_code', 'device_name', 'zone_id', 'parcel_ids', 'last_heartbeat'],
      properties: {
        device_id: int('Device id'),
        device_code: str('Device code, unique per tenant'),
        device_name: str('Device name'),
        zone_id: nullable(int('Zone of the device')),
        parcel_ids: { type: 'array', items: { type: 'integer' }, description: 'Parcels of the device' },
        last_heartbeat: {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'Last reading or heartbeat (ISO 8601 UTC); null when it never reported',
        },
      },
    },
    example: {
      device_id: 7,
      device_code: 'soil-07',
      device_name: 'Soil probe, north field',
      zone_id: 3,
      parcel_ids: [12],
      last_heartbeat: '2026-05-04T06:30:00.000Z',
    },
  },
  'iot.device.online': {
    summary: 'A device that was offline reported again (a reading or a heartbeat)',
    schema: {
      type: 'object',
      required: [
        'device_id',
        'device_code',
        'device_name',
        'zone_id',
        'parcel_ids',
        'offline_since',
        'online_at',
        'offline_seconds',
      ],
      properties: {
        device_id: int('Device id'),
        device_code: str('Device code, unique per tenant'),
        device_name: str('Device name'),
        zone_id: nullable(int('Zone of the device')),
        parcel_ids: { type: 'array', items: { type: 'integer' }, description: 'Parcels of the device' },
        offline_since: {
          type: 'string',
          format: 'date-time',
          description: 'When the device was marked offline, as its iot.device.offline told (ISO 8601 UTC)',
        },
        online_at: {
          type: 'string',
          format: 'date-time',
          description: 'When it was heard from again (ISO 8601 UTC)',
        },
        offline_seconds: int('Whole seconds from offline_since to online_at'),
      },
    },
    example: {
      device_id: 7,
      device_code: 'soil-07',
      device_name: 'Soil probe, north field',
      zone_id: 3,
      parcel_ids: [12],
      offline_since: '2026-05-04T06:35:00.000Z',
      online_at: '2026-05-04T07:05:30.000Z',
      offline_seconds: 1830,
    },
  },
  'harvest.batch.created': {
    summary: 'A harvest batch was declared and confirmed',
    schema: {
      type: 'object',
      required: ['harvest_record_id', 'parcel_id', 'crop_type_id', 'quantity_kg', 'confirmed_at'],
      properties: {
        harvest_record_id: int('Harvest batch id'),
        parcel_id: int('Parcel harvested'),
        crop_type_id: int('Crop type harvested'),
        quantity_kg: { type: 'number', description: 'Kilograms' },
        confirmed_at: {
          type: 'string',
          format: 'date-time',
          description: 'When it was confirmed (ISO 8601 UTC)',
        },
      },
    },
    example: {
      harvest_record_id: 88,
      parcel_id: 12,
      crop_type_id: 4,
      quantity_kg: 412.5,
      confirmed_at: '2026-05-04T10:00:00.000Z',
    },
  },
  'webhook.endpoint.paused': {
    summary:
      "Another webhook endpoint of the farm was paused (after failures, by an owner, or on 410 Gone); sent to the farm's other endpoints that select it",
    schema: {
      type: 'object',
      required: ['endpoint_id', 'url', 'description', 'paused_reason', 'paused_at', 'consecutive_failures'],
      properties: {
        endpoint_id: str('The endpoint paused (ep_…)'),
        url: str('Its receiving URL'),
        description: str('Its description'),
        paused_reason: str(
          'Why: "owner" (paused by hand), "gone" (its receiver answered 410) or the failure streak, e.g. "5 consecutive deliveries failed every attempt"',
        ),
        paused_at: { type: 'string', format: 'date-time', description: 'When it was paused (ISO 8601 UTC)' },
        consecutive_failures: int('Deliveries in a row that failed every attempt, when it was paused'),
      },
    },
    example: {
      endpoint_id: 'ep_4Qz8XkVbN2mT7rLpW9sYcA',
      url: 'https://hooks.example.com/furrow',
      description: 'Irrigation controller',
      paused_reason: '5 consecutive deliveries failed every attempt',
      paused_at: '2026-05-04T06:30:00.000Z',
      consecutive_failures: 5,
    },
  },
  [TEST_EVENT_TYPE]: {
    summary: 'A test message, sent from the management screen or POST /api/webhooks/{id}/test',
    schema: {
      type: 'object',
      required: ['endpoint_id', 'message'],
      properties: { endpoint_id: str('The endpoint tested (ep_…)'), message: str('A fixed text') },
    },
    example: { endpoint_id: 'ep_4Qz8XkVbN2mT7rLpW9sYcA', message: 'This is a test message from Furrow.' },
  },
};

/** Every kind of message Furrow sends: the event kinds and the test message. */
export const WEBHOOK_MESSAGE_KINDS: readonly string[] = [...EVENT_TYPES, TEST_EVENT_TYPE];

const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

const EXAMPLE_ID = 'msg_2bX9kQ7sLm4Np8Rt1Vw6Yz';
const EXAMPLE_TIMESTAMP = '1777876200';

function signatureHeaders(kind: string) {
  return [
    header('X-Service-Event', 'The event kind', kind),
    header(
      'X-Service-Delivery',
      'Delivery id (msg_…): the envelope id; receivers de-duplicate on it',
      EXAMPLE_ID,
    ),
    header(
      'X-Service-Timestamp',
      'Unix time in seconds of this attempt; reject it when more than 300 s off',
      EXAMPLE_TIMESTAMP,
    ),
    header(
      'X-Service-Signature',
      '`sha256=` + lowercase hex of HMAC-SHA256, keyed with the whole secret string (`whsec_…`), over ' +
        '`{X-Service-Timestamp}.{raw body}`; compare in constant time',
      'sha256=5f1c0e7a9b3d2f6e8a4c1b0d9e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f',
    ),
    header('webhook-id', 'Standard Webhooks: the same id as X-Service-Delivery', EXAMPLE_ID),
    header('webhook-timestamp', 'Standard Webhooks: the same time as X-Service-Timestamp', EXAMPLE_TIMESTAMP),
    header(
      'webhook-signature',
      'Standard Webhooks: `v1,` + base64 of HMAC-SHA256, keyed with the base64-decoded secret after ' +
        '`whsec_`, over `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation overlap two ' +
        'of them, space-separated, the new secret first: accept the message when any one matches',
      'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    ),
    {
      ...header(
        'X-Service-Signature-Previous',
        'Only during a rotation overlap: X-Service-Signature made with the previous secret, until it expires',
        'sha256=0d9e1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0b1a2f3e4d5c6b7a8f9e0d',
      ),
      required: false,
    },
  ];
}

/** The `webhooks` object of the document, one entry per message kind. */
export function webhookDocuments(): Record<string, unknown> {
  const documents: Record<string, unknown> = {};
  for (const kind of WEBHOOK_MESSAGE_KINDS) {
    const event = EVENT_DATA[kind as keyof typeof EVENT_DATA];
    documents[kind] = {
      post: {
        operationId: `on${kind
          .split('.')
          .map((part) => part[0]?.toUpperCase() + part.slice(1))
          .join('')}`,
        tags: ['webhooks'],
        summary: event.summary,
        description:
          `POSTed to the endpoint's URL when an endpoint subscribes to ${kind === TEST_EVENT_TYPE ? 'it (always, on request)' : `\`${kind}\` or \`*\``}. ` +
          'A 2xx answer within 10 seconds is success; anything else is retried after 1 min, 5 min, 30 min, 2 h, 6 h ' +
          'and 24 h. The same id and body are sent on every attempt; the timestamp and signatures are fresh.',
        parameters: signatureHeaders(kind),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['id', 'type', 'workspace_id', 'occurred_at', 'data'],
                properties: {
                  id: str('Message id (msg_…), as X-Service-Delivery and webhook-id'),
                  type: { type: 'string', const: kind, description: 'The event kind' },
                  workspace_id: str('The code of the tenant'),
                  occurred_at: {
                    type: 'string',
                    format: 'date-time',
                    description: 'When it happened (ISO 8601 UTC)',
                  },
                  data: event.schema,
                },
              },
              examples: {
                [kind]: {
                  summary: event.summary,
                  value: {
                    id: EXAMPLE_ID,
                    type: kind,
                    workspace_id: 'demo',
                    occurred_at: '2026-05-04T06:30:00.000Z',
                    data: event.example,
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: 'Received: any 2xx answer' },
          '400': { description: 'Refused (a bad signature, say): a failure, retried on the schedule' },
          '410': { description: 'Gone: the endpoint is paused at once; this and later messages are held' },
          '429': {
            description:
              'Too many: retried on the schedule, or later as Retry-After asks (seconds or an HTTP date; at most 24 h)',
          },
        },
        security: [],
      },
    };
  }
  return documents;
}
