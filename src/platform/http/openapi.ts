// OpenAPI 3.1 generated from the route schemas, at /openapi.json; an interactive reference at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorAnswer } from '../resource/answers.js';
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
          '`[{meta: {status_code, message, code, errors?}, data: []}]`; `meta.code` is a stable machine ' +
          'code (docs/errors.md lists every one).',
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

interface OpenApiOperation {
  security?: unknown[];
  parameters?: unknown[];
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: unknown }>;
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
}

const REPLAYED_RESPONSE_HEADER = {
  description: '`true` when this is the kept answer of an earlier request with the same Idempotency-Key',
  schema: { type: 'string', enum: ['true'] },
};

/**
 * Every authenticated POST of the API takes Idempotency-Key (login, which has no security, does
 * not): the shared parameter, Idempotent-Replayed on its success answer, and the 409 and 422 the
 * key may answer, in the error shape of the operation's other errors.
 */
function withIdempotencyKeys(document: OpenApiDocument): OpenApiDocument {
  const paths: NonNullable<OpenApiDocument['paths']> = {};
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    const post = operations.post;
    const keyed = path.startsWith('/api/') && post !== undefined && post.security?.length !== 0;
    paths[path] = keyed ? { ...operations, post: withIdempotencyKey(post) } : operations;
  }
  return { ...document, paths };
}

function withIdempotencyKey(post: OpenApiOperation): OpenApiOperation {
  const responses = { ...post.responses };
  // The operation's own error answer, or the error shape for one that documents none (logout).
  const errorAnswer = responses['401'] ?? {
    description: 'The error shape',
    content: { 'application/json': { schema: JSON.parse(JSON.stringify(ErrorAnswer)) } },
  };
  for (const [status, answer] of Object.entries(responses)) {
    if (status.startsWith('2'))
      responses[status] = {
        ...answer,
        headers: { ...answer.headers, [REPLAYED_HEADER]: REPLAYED_RESPONSE_HEADER },
      };
  }
  responses['409'] ??= errorAnswer;
  responses['422'] ??= errorAnswer;
  return {
    ...post,
    parameters: [...(post.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }],
    responses,
  };
}
