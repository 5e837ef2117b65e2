// /api/auth/api-keys: owners make, list and revoke the keys of integrations and gateways, from a
// person's session only (a key cannot make or revoke keys, so a leaked key cannot spread).
import type { FastifyInstance } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { requireSession } from '../../platform/http/auth.js';
import { type ResourceDeps, resourceRoutes } from '../../platform/resource/routes.js';
import { ApiKey, ApiKeyCreate, ApiKeyWithSecret } from './api-key.schemas.js';
import { apiKeyService } from './api-key.service.js';

const data = (schema: TSchema) => Type.Object({ data: schema });

export async function apiKeyRoutes(app: FastifyInstance, { deps }: { deps: ResourceDeps }): Promise<void> {
  app.addHook('preValidation', requireSession);
  await app.register(
    resourceRoutes({
      tag: 'auth',
      noun: 'API key',
      path: '/api/auth/api-keys',
      ownerOnly: true,
      envelope: 'data',
      description:
        "Keys for integrations and gateways, so no program stores a person's password: send one as " +
        '`Authorization: Bearer fk_…` (or `?token=`). A key acts as the owner who made it, with its own ' +
        "role; owners only, from a person's session (an API key gets a 403 here).",
      docs: {
        list: { summary: 'List the API keys (never the keys themselves)' },
        get: { summary: 'An API key (never the key itself)' },
        create: {
          summary: 'Make an API key; the answer shows the key, once',
          answer: data(ApiKeyWithSecret),
        },
        remove: { summary: 'Revoke an API key: it stops working at once' },
      },
      schemas: { item: ApiKey, create: ApiKeyCreate },
      service: apiKeyService,
    }),
    { deps },
  );
}
