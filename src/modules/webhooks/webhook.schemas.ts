import { Type } from 'typebox';
import { MAX_CUSTOM_HEADERS, MAX_HEADER_VALUE_LENGTH } from './custom-headers.js';
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
const headersDescription =
  `Request headers sent on every attempt, name → value (at most ${MAX_CUSTOM_HEADERS}; values up to ` +
  `${MAX_HEADER_VALUE_LENGTH} printable characters on one line). Refused, ignoring case: webhook-*, ` +
  'x-service-*, user-agent, content-*, host, proxy-* and the hop-by-hop headers (connection, ' +
  'keep-alive, transfer-encoding, te, trailer, upgrade, expect).';
const CustomHeaders = Type.Record(Type.String(), Type.String(), { description: headersDescription });

export const CreateEndpointBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    headers: Type.Optional(CustomHeaders),
  },
  { additionalProperties: true },
);

export const ChangeEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    headers: Type.Optional(
      Type.Union([CustomHeaders, Type.Null()], {
        description: `${headersDescription} Replaces the whole set; {} or null removes them all.`,
      }),
    ),
  },
  { additionalProperties: true },
);

/** Seconds the previous secret keeps signing after a rotation. */
export const MAX_PREVIOUS_SECRET_SECONDS = 604_800;
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 86_400;

export const RotateSecretBody = Type.Object(
  {
    expire_previous_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_PREVIOUS_SECRET_SECONDS,
        description:
          `How long the previous secret keeps signing beside the new one (default ${DEFAULT_PREVIOUS_SECRET_SECONDS}: ` +
          '24 hours; 0 stops it at once). A rotation during an overlap makes the current secret the ' +
          'previous one; the older one stops signing.',
      }),
    ),
  },
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
  headers: Type.Record(Type.String(), Type.String(), {
    description: "The owner's request headers, sent on every attempt ({} for none)",
  }),
  previous_secret_expires_at: Nullable(
    Type.String({
      description:
        'ISO 8601 UTC: until when the previous secret signs too, after a rotation; null when none does',
    }),
  ),
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
