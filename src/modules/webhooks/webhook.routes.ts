// The webhook management API (owner-only). The Webhooks screen is its first client.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../platform/db/types.js';
import { authOf, requireOwner, scopeOf } from '../../platform/http/auth.js';
import { translate } from '../../platform/i18n.js';
import {
  ChangeEndpointBody,
  Confirmation,
  CreateEndpointBody,
  DeliveryParams,
  DeliveryShape,
  EndpointParams,
  EndpointShape,
  EndpointWithSecret,
} from './webhook.schemas.js';
import {
  changeWebhookEndpoint,
  createWebhookEndpoint,
  enableWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliver,
  removeWebhookEndpoint,
  rotateWebhookSecret,
  sendTestMessage,
  TEST_MESSAGES_PER_MINUTE,
  TEST_MESSAGES_QUEUED,
  type WebhookDeps,
} from './webhook.service.js';

const tags = ['webhooks'];
const data = <T extends Parameters<typeof Type.Object>[0][string]>(schema: T) =>
  Type.Object({ data: schema });

export const webhookRoutes: FastifyPluginAsyncTypebox<{ deps: WebhookDeps & { db: Db } }> = async (
  app,
  { deps },
) => {
  app.addHook('preValidation', requireOwner);
  const scope = (request: Parameters<typeof scopeOf>[0]) => scopeOf(request, deps.db);

  app.get(
    '/api/webhooks',
    { schema: { tags, summary: 'List webhook endpoints', response: { 200: Type.Array(EndpointShape) } } },
    async (request) => listWebhookEndpoints(scope(request)),
  );

  app.post(
    '/api/webhooks',
    {
      schema: {
        tags,
        summary: 'Add a webhook endpoint; the answer shows its secret, once',
        body: CreateEndpointBody,
        response: { 201: data(EndpointWithSecret) },
      },
    },
    async (request, reply) => {
      const endpoint = await createWebhookEndpoint(deps, scope(request), request.body);
      reply.code(201).header('location', `/api/webhooks/${endpoint.id}`);
      return { data: endpoint as typeof endpoint & { secret: string } };
    },
  );

  app.get(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'A webhook endpoint',
        params: EndpointParams,
        response: { 200: data(EndpointShape) },
      },
    },
    async (request) => ({ data: await getWebhookEndpoint(scope(request), request.params.id) }),
  );

  app.put(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Change the url, events or description of a webhook endpoint',
        params: EndpointParams,
        body: ChangeEndpointBody,
        response: { 200: data(EndpointShape) },
      },
    },
    async (request) => ({
      data: await changeWebhookEndpoint(deps, scope(request), request.params.id, request.body),
    }),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Remove a webhook endpoint with its queued deliveries and log',
        params: EndpointParams,
        response: { 200: Confirmation },
      },
    },
    async (request) => {
      await removeWebhookEndpoint(scope(request), request.params.id);
      return [{ status_code: 0, message: translate('http.deleted', request.language) }];
    },
  );

  app.post(
    '/api/webhooks/:id/test',
    {
      schema: {
        tags,
        summary: 'Send one webhook.test message now',
        description: `At most ${TEST_MESSAGES_QUEUED} test messages of an endpoint wait or are in flight at a time, and at most ${TEST_MESSAGES_PER_MINUTE} are sent to it a minute; past either the answer is 429 with Retry-After.`,
        params: EndpointParams,
        response: { 202: data(DeliveryShape) },
      },
    },
    async (request, reply) => {
      const delivery = await sendTestMessage(
        deps,
        scope(request),
        request.params.id,
        authOf(request).tenant.code,
      );
      reply.code(202);
      return { data: delivery };
    },
  );

  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      schema: {
        tags,
        summary: 'Replace the secret; the answer shows the new one, once, and the old one stops signing',
        params: EndpointParams,
        response: { 200: data(EndpointWithSecret) },
      },
    },
    async (request) => {
      const endpoint = await rotateWebhookSecret(deps, scope(request), request.params.id);
      return { data: endpoint as typeof endpoint & { secret: string } };
    },
  );

  app.post(
    '/api/webhooks/:id/enable',
    {
      schema: {
        tags,
        summary: 'Re-enable a paused endpoint; held deliveries resume in order',
        params: EndpointParams,
        response: { 200: data(EndpointShape) },
      },
    },
    async (request) => ({ data: await enableWebhookEndpoint(deps, scope(request), request.params.id) }),
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'The last 50 deliveries, newest first, each with its attempts',
        params: EndpointParams,
        response: { 200: Type.Array(DeliveryShape) },
      },
    },
    async (request) => listWebhookDeliveries(scope(request), request.params.id),
  );

  app.post(
    '/api/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      schema: {
        tags,
        summary: 'Send a finished delivery again: same id and body, fresh timestamp and signature',
        params: DeliveryParams,
        response: { 202: data(DeliveryShape) },
      },
    },
    async (request, reply) => {
      const delivery = await redeliver(deps, scope(request), request.params.id, request.params.delivery_id);
      reply.code(202);
      return { data: delivery };
    },
  );
};
