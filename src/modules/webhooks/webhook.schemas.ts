import { Type } from 'typebox';
import { MAX_CUSTOM_HEADERS, MAX_HEADER_VALUE_LENGTH } from './custom-headers.js';
import { MAX_FILTER_VALUES } from './endpoint-filters.js';
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

// One `type` list, not a union: the body's type coercion would turn 7 into "7" in a union's first branch.
const FilterValue = Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'] });
const FilterValues = Type.Array(FilterValue, {
  minItems: 1,
  maxItems: MAX_FILTER_VALUES,
  description: 'The values the data field may equal (strict equality: 1 is not "1")',
});
const FILTERS_DESCRIPTION =
  'Per event kind, top-level data fields and the values each may have, e.g. {"iot.alert.raised": {"severity": ["critical"]}}: an event of that kind whose data does not match makes no delivery to this endpoint. Kinds without an entry are not filtered.';
const Filters = Type.Record(Type.String(), Type.Record(Type.String(), FilterValues), {
  description: FILTERS_DESCRIPTION,
});
const FiltersInput = Type.Optional(
  Type.Union([Filters, Type.Null()], { description: `${FILTERS_DESCRIPTION} null clears them.` }),
);

export const CreateEndpointBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    filters: FiltersInput,
    headers: Type.Optional(CustomHeaders),
  },
  { additionalProperties: true },
);

export const ChangeEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    filters: FiltersInput,
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

const Timestamp = (description: string) =>
  Type.String({ description: `${description}; YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601` });

export const RecoverBody = Type.Object(
  {
    since: Timestamp('Deliveries that ended failed at or after this time'),
    until: Type.Optional(Timestamp('…and at or before this time (default: now)')),
  },
  { additionalProperties: true },
);
export const RecoverAnswer = Type.Object({
  data: Type.Object({ count: Type.Integer({ description: 'Deliveries queued to be sent again' }) }),
});

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

export const DeliveryQuery = {
  status: Type.Optional(DeliveryStatus),
  event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Event kind' })),
  since: Type.Optional(Timestamp('Deliveries created at or after this time')),
  until: Type.Optional(Timestamp('Deliveries created at or before this time')),
};

export const StatsQuery = {
  window: Type.Optional(
    Type.Union([Type.Literal('24h'), Type.Literal('7d')], {
      description: 'The period counted (default 24h)',
    }),
  ),
};

export const StatsAnswer = Type.Object({
  data: Type.Object({
    window: Type.Union([Type.Literal('24h'), Type.Literal('7d')]),
    from: Type.String({ description: 'ISO 8601 UTC: the start of the window' }),
    until: Type.String({ description: 'ISO 8601 UTC: now' }),
    succeeded: Type.Integer({ description: 'Deliveries that succeeded in the window' }),
    failed: Type.Integer({ description: 'Deliveries that failed every attempt in the window' }),
    pending: Type.Integer({ description: 'Deliveries queued now (pending or retrying)' }),
    held: Type.Integer({ description: 'Deliveries held now (the endpoint is paused)' }),
    success_rate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: 'succeeded / (succeeded + failed); null when none finished',
    }),
    duration_ms: Type.Object(
      {
        p50: Type.Union([Type.Integer(), Type.Null()]),
        p95: Type.Union([Type.Integer(), Type.Null()]),
      },
      { description: 'Median and 95th percentile of the attempts made in the window; null without any' },
    ),
    last_success_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601 UTC' }),
    last_failure_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601 UTC' }),
  }),
});

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
  filters: Nullable(Filters),
  stats_24h: Type.Optional(
    Type.Object(
      {
        success_rate: Nullable(
          Type.Number({ description: 'delivered / (delivered + failed); null when none' }),
        ),
        delivered: Type.Integer(),
        failed: Type.Integer(),
      },
      { description: 'On the list only: deliveries that finished in the last 24 hours' },
    ),
  ),
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
