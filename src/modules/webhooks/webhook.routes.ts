// The webhook management API, declared like every resource: owners only, endpoints by their ep_… id,
// listed whole, answered under `data`. Test, rotate-secret, enable, the delivery log and redeliver
// are its routes beyond the five. The Webhooks screen is its first client.
import type { FastifyInstance } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { action, subList } from '../../platform/resource/actions.js';
import { errorAnswers } from '../../platform/resource/answers.js';
import { idOf, type ResourceRoute, requestContext } from '../../platform/resource/request.js';
import { type ResourceDeps, resourceRoutes } from '../../platform/resource/routes.js';
import { eventCatalogue } from './event-catalogue.js';
import {
  ChangeEndpointBody,
  Confirmation,
  CreateEndpointBody,
  DeliveryParams,
  DeliveryQuery,
  DeliveryShape,
  EndpointId,
  EndpointParams,
  EndpointShape,
  EndpointWithSecret,
  EventCatalogueAnswer,
  RecoverAnswer,
  RecoverBody,
  RotateSecretBody,
  StatsAnswer,
  StatsQuery,
  TestMessageBody,
} from './webhook.schemas.js';
import {
  changeWebhookEndpoint,
  createWebhookEndpoint,
  enableWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  lockWebhookEndpoint,
  prepareWebhookEndpointChange,
  removeWebhookEndpoint,
  rotateWebhookSecret,
  sendTestMessage,
  TEST_MESSAGES_PER_MINUTE,
  TEST_MESSAGES_QUEUED,
  type WebhookDeps,
} from './webhook.service.js';
import { pauseWebhookEndpoint, RECOVER_LIMIT, recoverFailedDeliveries } from './webhook-control.service.js';
import { listWebhookDeliveries, redeliver } from './webhook-deliveries.service.js';
import { type StatsWindow, webhookEndpointStats } from './webhook-insight.service.js';

const tag = 'webhooks';
const path = '/api/webhooks';
const data = (schema: TSchema) => Type.Object({ data: schema });

export async function webhookRoutes(
  app: FastifyInstance,
  { deps }: { deps: WebhookDeps & ResourceDeps },
): Promise<void> {
  await app.register(webhookResource(deps), { deps });
}

/** The routes document no error answers and name their operations themselves, as they always have. */
function webhookResource(deps: WebhookDeps) {
  return resourceRoutes({
    tag,
    noun: 'webhook endpoint',
    path,
    ownerOnly: true,
    bodyChecks: false,
    envelope: 'data',
    updateAnswer: 'record',
    docs: {
      list: { summary: 'List webhook endpoints', errors: [] },
      get: { summary: 'A webhook endpoint', errors: [] },
      create: {
        summary: 'Add a webhook endpoint; the answer shows its secret, once',
        answer: data(EndpointWithSecret),
        errors: [],
      },
      update: {
        summary: 'Change the url, events, description or headers of a webhook endpoint',
        errors: [],
      },
      remove: {
        summary: 'Remove a webhook endpoint with its queued deliveries and log',
        answer: Confirmation,
        errors: [],
      },
    },
    schemas: { id: EndpointId, item: EndpointShape, create: CreateEndpointBody, update: ChangeEndpointBody },
    service: {
      listAll: (ctx) => listWebhookEndpoints(deps, ctx.scope),
      get: (ctx, id) => getWebhookEndpoint(ctx.scope, id, deps.clock.now()),
      lock: (ctx, id) => lockWebhookEndpoint(ctx.scope, id),
      create: (ctx, input) => createWebhookEndpoint(deps, ctx.scope, input),
      update: (ctx, id, input) => changeWebhookEndpoint(deps, ctx.scope, id, input),
      prepareUpdate: (ctx, id, input) => prepareWebhookEndpointChange(deps, ctx.scope, id, input),
      remove: (ctx, id) => removeWebhookEndpoint(ctx.scope, id),
    },
    routes: [
      eventTypesRoute,
      action({
        tag,
        operationId: 'sendWebhookTest',
        path: `${path}/:id/test`,
        params: EndpointParams,
        summary: 'Send one test message now: a webhook.test, or the catalogue example of an event kind',
        description: `Without a body (or without event_type) a \`webhook.test\` message; with \`event_type\`, that kind's example from GET /api/webhooks/event-types as the data, the envelope marked \`test: true\`. Either is one attempt and never counts toward pausing; an endpoint receives it whatever it subscribes to. At most ${TEST_MESSAGES_QUEUED} test messages of an endpoint wait or are in flight at a time, and at most ${TEST_MESSAGES_PER_MINUTE} are sent to it a minute; past either the answer is 429 with Retry-After.`,
        body: TestMessageBody,
        status: 202,
        answer: data(DeliveryShape),
        errors: [],
        run: async (ctx, { id, tenantCode, body }) => ({
          data: await sendTestMessage(deps, ctx.scope, id, tenantCode, body?.event_type),
        }),
      }),
      action({
        tag,
        operationId: 'rotateWebhookSecret',
        path: `${path}/:id/rotate-secret`,
        params: EndpointParams,
        summary:
          'Replace the secret; the answer shows the new one, once; the old one signs too until it expires',
        description:
          'Until `previous_secret_expires_at` every message carries both signatures: two `v1,` entries in ' +
          '`webhook-signature` (new first), `X-Service-Signature` with the new secret and ' +
          '`X-Service-Signature-Previous` with the old one. The body may be left out.',
        body: RotateSecretBody,
        answer: data(EndpointWithSecret),
        errors: [],
        run: async (ctx, { id, body }) => ({
          data: await rotateWebhookSecret(deps, ctx.scope, id, body.expire_previous_in_seconds),
        }),
      }),
      action({
        tag,
        operationId: 'enableWebhookEndpoint',
        path: `${path}/:id/enable`,
        params: EndpointParams,
        summary: 'Re-enable a paused endpoint; held deliveries resume in order',
        answer: data(EndpointShape),
        errors: [],
        run: async (ctx, { id }) => ({ data: await enableWebhookEndpoint(deps, ctx.scope, id) }),
      }),
      action({
        tag,
        operationId: 'pauseWebhookEndpoint',
        path: `${path}/:id/pause`,
        params: EndpointParams,
        summary: 'Pause an endpoint (paused_reason "owner"): events are held until enable',
        description:
          "Events for the endpoint are kept as held deliveries, as for an automatic pause; enable resumes them in order. Pausing a paused endpoint changes nothing and answers it as it is. The farm's other endpoints that select webhook.endpoint.paused are told.",
        answer: data(EndpointShape),
        errors: [],
        run: async (ctx, { id }) => ({ data: await pauseWebhookEndpoint(deps, ctx.scope, id) }),
      }),
      action({
        tag,
        operationId: 'recoverWebhookDeliveries',
        path: `${path}/:id/recover`,
        params: EndpointParams,
        body: RecoverBody,
        summary: 'Send again every delivery that ended failed in a window',
        description: `Every delivery of the endpoint that ended \`failed\` with its last attempt finished between since and until (default now) is sent again, as Redeliver sends one: same id and body, fresh timestamp and signature. At most ${RECOVER_LIMIT} at once: more is a 422 (narrow the window). Only deliveries still in the log can be sent again.`,
        status: 202,
        answer: RecoverAnswer,
        errors: [],
        run: async (ctx, { id, body }) => ({
          data: await recoverFailedDeliveries(deps, ctx.scope, id, body),
        }),
      }),
      subList({
        tag,
        operationId: 'listWebhookDeliveries',
        path: `${path}/:id/deliveries`,
        params: EndpointParams,
        summary: 'The last 50 deliveries, newest first, each with its attempts',
        description:
          'Filters narrow the list before the 50 are taken: status, event_type, and since/until on the time the delivery was created.',
        paging: false,
        query: DeliveryQuery,
        item: DeliveryShape,
        errors: [],
        list: (ctx, id, query) => listWebhookDeliveries(ctx.scope, id, query),
      }),
      endpointStats(deps),
      action({
        tag,
        operationId: 'redeliverWebhookDelivery',
        path: `${path}/:id/deliveries/:delivery_id/redeliver`,
        params: DeliveryParams,
        summary: 'Send a finished delivery again: same id and body, fresh timestamp and signature',
        status: 202,
        answer: data(DeliveryShape),
        errors: [],
        run: async (ctx, { id, params }) => ({
          data: await redeliver(deps, ctx.scope, id, params.delivery_id),
        }),
      }),
    ],
  });
}

/** GET /api/webhooks/:id/stats: one endpoint's outcomes over a window. */
function endpointStats(deps: WebhookDeps): ResourceRoute {
  return (app, resourceDeps) => {
    app.get(
      `${path}/:id/stats`,
      {
        schema: {
          tags: [tag],
          operationId: 'webhookEndpointStats',
          summary: 'Deliveries of an endpoint by outcome, success rate and attempt durations over 24h or 7d',
          description:
            "Counted from the endpoint's hourly roll-up, to which every delivery that ends and every attempt adds (kept 8 days; the log's 50 deliveries do not limit it). The window is whole hours: the current one and the 23 (24h) or 167 (7d) before it, `from` being the first one's start. p50 and p95 are interpolated within a histogram of the attempts' durations (buckets up to 10, 25, 50, 100, 250, 500, 1000, 2500, 5000 and 10000 ms, and longer). `pending` and `held` are counts now; the last success and failure are the latest in the roll-up or the log.",
          params: EndpointParams,
          querystring: Type.Object(StatsQuery, { additionalProperties: true }),
          response: { 200: StatsAnswer, ...errorAnswers() },
        },
      },
      async (request) => {
        const ctx = requestContext(request, resourceDeps);
        const { window } = request.query as { window?: StatsWindow };
        return { data: await webhookEndpointStats(deps, ctx.scope, idOf<string>(request), window) };
      },
    );
  };
}

/** GET /api/webhooks/event-types: the event catalogue, its descriptions in the request's language. */
const eventTypesRoute: ResourceRoute = (app) => {
  app.get(
    `${path}/event-types`,
    {
      schema: {
        tags: [tag],
        operationId: 'listWebhookEventTypes',
        summary: 'The event catalogue: every event kind with its JSON Schema and an example message',
        description:
          "One item per event kind an endpoint can select: `schema` is the JSON Schema of the whole message (the envelope with its `data`), `example` a message valid against it. Descriptions are in the request's language. The `webhooks` section of this document holds the same schemas.",
        response: { 200: EventCatalogueAnswer },
      },
    },
    async (request) => ({ data: eventCatalogue(request.language) }),
  );
};
