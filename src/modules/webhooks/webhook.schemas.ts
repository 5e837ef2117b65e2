import { Type } from 'typebox';
import { SUBSCRIBABLE } from './events.js';

export const EndpointId = Type.String({ pattern: '^ep_[0-9A-Za-z]{22}$', description: 'Endpoint id (ep_…)' });
const DeliveryId = Type.String({ pattern: '^msg_[0-9A-Za-z]{22}$', description: 'Delivery id (msg_…)' });

export const EndpointParams = Type.Object({ id: EndpointId });
export const DeliveryParams = Type.Object({ id: EndpointId, delivery_id: DeliveryId });

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https URL of a public server; no credentials',
});
const Events = Type.Array(Type.Union(SUBSCRIBABLE.map((e) => Type.Literal(e))), {
  minItems: 1,
  maxItems: 20,
  description: 'Event kinds to receive, or ["*"] for all',
});
const Description = Type.String({ maxLength: 500 });

export const CreateEndpointBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: true },
);

export const ChangeEndpointBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description) },
  { additionalProperties: true },
);

const Iso = Type.String({ description: 'ISO 8601 UTC' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const DeliveryStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('retrying'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
  Type.Literal('held'),
]);

const LastDelivery = Type.Object(
  {
    id: Type.String({ description: 'msg_…' }),
    event_type: Type.String(),
    status: DeliveryStatus,
    created_at: Iso,
    attempted_at: Nullable(Type.String({ description: 'ISO 8601 UTC: when its latest attempt started' })),
    response_status: Nullable(
      Type.Integer({ description: "The receiver's HTTP status at the latest attempt; null without one" }),
    ),
  },
  { description: 'The newest delivery of the endpoint (the one its log lists first)' },
);

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('paused')]),
  paused_reason: Nullable(Type.String()),
  consecutive_failures: Type.Integer({ description: 'Deliveries in a row that failed every attempt' }),
  held_count: Type.Integer({ description: 'Deliveries waiting while the endpoint is paused' }),
  last_delivery: Nullable(LastDelivery),
  created_at: Iso,
  updated_at: Iso,
};

export const EndpointShape = Type.Object(endpointFields);
export const EndpointWithSecret = Type.Object({
  ...endpointFields,
  secret: Type.String({ description: 'whsec_…; shown only in this answer' }),
});

export const DeliveryShape = Type.Object({
  id: Type.String({ description: 'msg_…: envelope id, X-Service-Delivery and webhook-id' }),
  event_type: Type.String(),
  status: DeliveryStatus,
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(Iso),
  created_at: Iso,
  request: Type.Object({
    headers: Type.Record(Type.String(), Type.String()),
    body: Type.String({ description: 'The exact bytes sent on every attempt' }),
  }),
  attempts: Type.Array(
    Type.Object({
      number: Type.Integer(),
      started_at: Iso,
      duration_ms: Type.Integer(),
      status_code: Nullable(Type.Integer()),
      error: Nullable(Type.String()),
      response_excerpt: Nullable(Type.String({ description: 'First 1 KB of the answer' })),
    }),
  ),
});

export const Confirmation = Type.Array(Type.Object({ status_code: Type.Integer(), message: Type.String() }));

export const TestMessageBody = Type.Object(
  {
    event_type: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'An event kind of GET /api/webhooks/event-types: its example is sent, marked test: true. Without it, a webhook.test',
      }),
    ),
  },
  { additionalProperties: true },
);

const JsonObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const EventCatalogueAnswer = Type.Object({
  data: Type.Array(
    Type.Object({
      type: Type.String({ description: 'The event kind, as endpoints select it' }),
      group: Type.String({ description: 'What it is about: iot, harvest or webhooks' }),
      description: Type.String({ description: "What happened, in the request's language" }),
      schema: JsonObject('JSON Schema (2020-12) of the whole message: the envelope and its data'),
      example: JsonObject('A message of this kind, valid against schema'),
    }),
  ),
});
