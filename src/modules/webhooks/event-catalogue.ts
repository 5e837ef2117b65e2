// The event catalogue: every kind of message Furrow sends, with its data written once as TypeBox.
// The same schemas answer GET /api/webhooks/event-types, make the `webhooks` section of /openapi.json
// (webhook.openapi.ts), are written out in docs/webhook-events.md, and check the real payloads in tests.
// A schema is the whole envelope as the receiver gets it; new data fields may be added later, so the
// schemas do not forbid fields they do not name.
import { type TObject, type TSchema, Type } from 'typebox';
import type { Language, MessageKey } from '../../platform/i18n.js';
import { translate } from '../../platform/i18n.js';
import { EVENT_TYPES, type EventType, TEST_EVENT_TYPE } from './events.js';

/** The operational event of a pause; events.ts lists it once the pause raises it. */
export const ENDPOINT_PAUSED_EVENT_TYPE = 'webhook.endpoint.paused';

export type CatalogueKind = EventType | typeof ENDPOINT_PAUSED_EVENT_TYPE;

export type EventGroup = 'iot' | 'harvest' | 'webhooks';

export interface CatalogueEntry {
  type: string;
  group: EventGroup;
  /** Catalogue key of the description, translated when answered. */
  descriptionKey: MessageKey;
  /** One line in English, for the OpenAPI summary and the docs. */
  summary: string;
  /** The schema of `data`. */
  data: TObject;
  /** An example of `data`, valid against it. */
  example: Record<string, unknown>;
}

const Iso = (description: string) => Type.String({ format: 'date-time', description });
const Id = (description: string) => Type.Integer({ description });
const ZoneId = Type.Union([Type.Integer(), Type.Null()], {
  description: 'Zone of the device; null when none',
});
const ParcelIds = Type.Array(Type.Integer(), { description: 'Parcels of the device' });
const DeviceCode = Type.String({ description: 'Device code, unique per tenant' });
const Severity = Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')], {
  description: "The rule's severity",
});

const alertFields = {
  alert_id: Id('The alert'),
  device_id: Id('Device id'),
  device_code: DeviceCode,
  zone_id: ZoneId,
  parcel_ids: ParcelIds,
  metric: Type.String({ description: 'The metric read, e.g. soil_moisture' }),
  value: Type.Number({ description: 'The value that raised the alert' }),
  threshold: Type.Number({ description: "The rule's threshold when the alert was raised" }),
  severity: Severity,
  message: Type.String({ description: "The rule's message with its placeholders filled" }),
  rule_id: Id('The threshold rule'),
  recorded_at: Iso('When the reading that raised the alert was taken (ISO 8601 UTC)'),
};

const deviceFields = {
  device_id: Id('Device id'),
  device_code: DeviceCode,
  device_name: Type.String({ description: 'Device name' }),
  zone_id: ZoneId,
  parcel_ids: ParcelIds,
};

const ALERT_EXAMPLE = {
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
};

const DEVICE_EXAMPLE = {
  device_id: 7,
  device_code: 'soil-07',
  device_name: 'Soil probe, north field',
  zone_id: 3,
  parcel_ids: [12],
};

const ENTRIES: Record<CatalogueKind, Omit<CatalogueEntry, 'type'>> = {
  'iot.alert.raised': {
    group: 'iot',
    descriptionKey: 'webhook.event.iot.alert.raised',
    summary: 'A sensor reading crossed a threshold rule',
    data: Type.Object(alertFields),
    example: ALERT_EXAMPLE,
  },
  'iot.alert.resolved': {
    group: 'iot',
    descriptionKey: 'webhook.event.iot.alert.resolved',
    summary: "A reading came back past the rule's clear threshold: the active alert is resolved",
    data: Type.Object({
      ...alertFields,
      clear_threshold: Type.Number({
        description:
          "The rule's clear threshold (its threshold when it has none): readings back past it resolve",
      }),
      resolved_value: Type.Number({ description: 'The value read that resolved the alert' }),
      resolved_at: Iso("When that reading was taken (ISO 8601 UTC): the alert's resolved_at"),
    }),
    example: {
      ...ALERT_EXAMPLE,
      clear_threshold: 18,
      resolved_value: 19.2,
      resolved_at: '2026-05-04T09:10:00.000Z',
    },
  },
  'iot.device.offline': {
    group: 'iot',
    descriptionKey: 'webhook.event.iot.device.offline',
    summary: 'A device sent no reading or heartbeat for longer than its timeout',
    data: Type.Object({
      ...deviceFields,
      last_heartbeat: Type.Union([Iso('Last reading or heartbeat (ISO 8601 UTC)'), Type.Null()], {
        description: 'Last reading or heartbeat (ISO 8601 UTC); null when it never reported',
      }),
    }),
    example: { ...DEVICE_EXAMPLE, last_heartbeat: '2026-05-04T06:30:00.000Z' },
  },
  'iot.device.online': {
    group: 'iot',
    descriptionKey: 'webhook.event.iot.device.online',
    summary: 'A device that was offline reported again (a reading or a heartbeat)',
    data: Type.Object({
      ...deviceFields,
      offline_since: Iso('When the device was marked offline, as its iot.device.offline told (ISO 8601 UTC)'),
      online_at: Iso('When it was heard from again (ISO 8601 UTC)'),
      offline_seconds: Type.Integer({
        minimum: 0,
        description: 'Whole seconds from offline_since to online_at',
      }),
    }),
    example: {
      ...DEVICE_EXAMPLE,
      offline_since: '2026-05-04T06:35:00.000Z',
      online_at: '2026-05-04T07:05:30.000Z',
      offline_seconds: 1830,
    },
  },
  'harvest.batch.created': {
    group: 'harvest',
    descriptionKey: 'webhook.event.harvest.batch.created',
    summary: 'A harvest batch was declared and confirmed',
    data: Type.Object({
      harvest_record_id: Id('Harvest batch id'),
      parcel_id: Id('Parcel harvested'),
      crop_type_id: Id('Crop type harvested'),
      quantity_kg: Type.Number({ description: 'Kilograms' }),
      confirmed_at: Iso('When it was confirmed (ISO 8601 UTC)'),
    }),
    example: {
      harvest_record_id: 88,
      parcel_id: 12,
      crop_type_id: 4,
      quantity_kg: 412.5,
      confirmed_at: '2026-05-04T10:00:00.000Z',
    },
  },
  [ENDPOINT_PAUSED_EVENT_TYPE]: {
    group: 'webhooks',
    descriptionKey: 'webhook.event.webhook.endpoint.paused',
    summary: "Another of the tenant's webhook endpoints was paused; its events are held until it is enabled",
    data: Type.Object({
      endpoint_id: Type.String({ description: 'The endpoint paused (ep_…)' }),
      url: Type.String({ description: 'Its receiving URL' }),
      description: Type.String({ description: 'Its description' }),
      paused_reason: Type.String({
        description: 'Why: "owner" (paused by an owner), "gone" (the receiver answered 410), or the failures',
      }),
      paused_at: Iso('When it was paused (ISO 8601 UTC)'),
      consecutive_failures: Type.Integer({
        minimum: 0,
        description: 'Deliveries in a row that failed every attempt when it was paused',
      }),
    }),
    example: {
      endpoint_id: 'ep_4Qz8XkVbN2mT7rLpW9sYcA',
      url: 'https://hooks.example.org/furrow',
      description: 'Farm dashboard',
      paused_reason: '5 consecutive deliveries failed every attempt',
      paused_at: '2026-05-04T11:20:00.000Z',
      consecutive_failures: 5,
    },
  },
};

/** The test message (POST /api/webhooks/{id}/test without an event_type): not an event, never selectable. */
export const TEST_MESSAGE: CatalogueEntry = {
  type: TEST_EVENT_TYPE,
  group: 'webhooks',
  descriptionKey: 'webhook.event.webhook.test',
  summary: 'A test message, sent from the farm app or POST /api/webhooks/{id}/test',
  data: Type.Object({
    endpoint_id: Type.String({ description: 'The endpoint tested (ep_…)' }),
    message: Type.String({ description: 'A fixed text' }),
  }),
  example: { endpoint_id: 'ep_4Qz8XkVbN2mT7rLpW9sYcA', message: 'This is a test message from Furrow.' },
};

/** The kinds of the catalogue, in events.ts order, then those events.ts does not list yet. */
export const CATALOGUE_KINDS: readonly CatalogueKind[] = [
  ...EVENT_TYPES,
  ...(Object.keys(ENTRIES) as CatalogueKind[]).filter((k) => !(EVENT_TYPES as readonly string[]).includes(k)),
];

export function isCatalogueKind(kind: string): kind is CatalogueKind {
  return Object.hasOwn(ENTRIES, kind);
}

export function catalogueEntry(kind: CatalogueKind): CatalogueEntry {
  return { type: kind, ...ENTRIES[kind] };
}

/** Every entry, in CATALOGUE_KINDS order. */
export function catalogueEntries(): CatalogueEntry[] {
  return CATALOGUE_KINDS.map(catalogueEntry);
}

export const EXAMPLE_MESSAGE_ID = 'msg_2bX9kQ7sLm4Np8Rt1Vw6Yz';
export const EXAMPLE_OCCURRED_AT = '2026-05-04T06:30:00.000Z';

/** The JSON Schema of a whole message of this kind: the envelope with its data. */
export function envelopeSchema(entry: CatalogueEntry): TSchema {
  return Type.Object(
    {
      id: Type.String({
        pattern: '^msg_[0-9A-Za-z]{22}$',
        description: 'Message id (msg_…), as X-Service-Delivery and webhook-id; receivers de-duplicate on it',
      }),
      type: Type.Literal(entry.type, { description: 'The event kind' }),
      test: Type.Optional(
        Type.Literal(true, {
          description: 'Present (true) only on a test message sent with POST /api/webhooks/{id}/test',
        }),
      ),
      workspace_id: Type.String({ description: 'The code of the tenant' }),
      occurred_at: Iso('When it happened (ISO 8601 UTC)'),
      data: entry.data,
    },
    { title: `${entry.type} message`, description: entry.summary },
  );
}

/** An example of a whole message of this kind, valid against envelopeSchema. */
export function envelopeExample(entry: CatalogueEntry): Record<string, unknown> {
  return {
    id: EXAMPLE_MESSAGE_ID,
    type: entry.type,
    workspace_id: 'demo',
    occurred_at: EXAMPLE_OCCURRED_AT,
    data: entry.example,
  };
}

/** A plain JSON copy of a TypeBox schema (no symbols), for documents and answers. */
export function plainSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

export interface CatalogueItem {
  type: string;
  group: EventGroup;
  description: string;
  schema: Record<string, unknown>;
  example: Record<string, unknown>;
}

/** The catalogue as GET /api/webhooks/event-types answers it: the envelope's schema and example. */
export function eventCatalogue(language: Language): CatalogueItem[] {
  return catalogueEntries().map((entry) => ({
    type: entry.type,
    group: entry.group,
    description: translate(entry.descriptionKey, language),
    schema: plainSchema(envelopeSchema(entry)),
    example: envelopeExample(entry),
  }));
}
