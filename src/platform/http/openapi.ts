// OpenAPI 3.1 generated from the route schemas, at /openapi.json; an interactive reference at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './idempotency.js';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Furrow API',
        version: '1.0.0',
        description:
          'Farm management API: crops and livestock, crop types, product categories, production-diary tasks, ' +
          'seasons and season templates; IoT and harvest; webhook management. Errors use the shape ' +
          '`[{meta: {status_code, message, errors?}, data: []}]`.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer' },
          tokenQuery: { type: 'apiKey', in: 'query', name: 'token' },
        },
        parameters: { IdempotencyKey: IDEMPOTENCY_PARAMETER },
      },
      security: [{ bearerAuth: [] }, { tokenQuery: [] }],
    },
    transformObject: (document) =>
      withIdempotencyKeys((document as { openapiObject: OpenApiDocument }).openapiObject) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
}

const IDEMPOTENCY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: 'header' as const,
  required: false,
  description:
    'Makes a retry safe: 1 to 255 printable ASCII characters (a UUID), new for each new request. The first ' +
    'answer (status, Location, body; a 5xx excepted) is kept 24 hours per tenant and key; the same key with the ' +
    `same method, path and body answers it again with \`${REPLAYED_HEADER}: true\` and does nothing again. The ` +
    'same key with another path or body: 422; while the first request is still running: 409 with Retry-After. ' +
    'A body refused by validation claims no key.',
  schema: { type: 'string' as const, minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

interface OpenApiDocument {
  paths?: Record<string, Record<string, { security?: unknown[]; parameters?: unknown[] }>>;
}

/** Every authenticated POST of the API takes Idempotency-Key (login, which has no security, does not). */
function withIdempotencyKeys(document: OpenApiDocument): OpenApiDocument {
  const paths: NonNullable<OpenApiDocument['paths']> = {};
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    const post = operations.post;
    const keyed = path.startsWith('/api/') && post !== undefined && post.security?.length !== 0;
    paths[path] = keyed
      ? {
          ...operations,
          post: {
            ...post,
            parameters: [...(post.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }],
          },
        }
      : operations;
  }
  return { ...document, paths };
}
