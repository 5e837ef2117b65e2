// OpenAPI 3.1 generated from the route schemas, at /openapi.json; an interactive reference at /docs.
// The routes give the operations (operationId, schemas, answers); the transform below finishes the
// document without touching the routes' validation or serialization: named schemas as $refs
// (openapi-components.ts), bracket search parameters as deepObject, examples, the webhooks section,
// servers, info and tags.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorAnswer } from '../resource/answers.js';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './idempotency.js';
import { withNamedSchemas } from './openapi-components.js';

type Examples = Record<string, { summary: string; value: unknown }>;

/** What the document says beyond the routes, given by the app (src/api-document.ts). */
export interface ApiDocumentExtras {
  /** The version of this Furrow (package.json). */
  version: string;
  /** Every tag the operations use, with its description. */
  tags: Record<string, string>;
  /** Examples by operationId: of the request body, and of one answer. */
  examples: Record<string, { request?: Examples; answer?: { status: string; examples: Examples } }>;
  /** The `webhooks` section: the messages Furrow sends. */
  webhooks: Record<string, unknown>;
}

export async function registerOpenApi(app: FastifyInstance, extras: ApiDocumentExtras): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Furrow API',
        version: extras.version,
        description:
          'Farm management API: crops and livestock, crop types, product categories, production-diary tasks, ' +
          'seasons and season templates; IoT and harvest; webhook management. Errors use the shape ' +
          '`[{meta: {status_code, message, code, errors?}, data: []}]`; `meta.code` is a stable machine ' +
          'code (docs/errors.md lists every one). The messages Furrow sends to webhook endpoints, with ' +
          'their signature headers, are under `webhooks`.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An access token from POST /api/auth/login, or an API key (fk_…)',
          },
          tokenQuery: {
            type: 'apiKey',
            in: 'query',
            name: 'token',
            description: 'The same token as a query parameter, for the original clients',
          },
        },
        parameters: { IdempotencyKey: IDEMPOTENCY_PARAMETER },
      },
      security: [{ bearerAuth: [] }, { tokenQuery: [] }],
    },
    transformObject: (document) =>
      finishDocument((document as { openapiObject: OpenApiDocument }).openapiObject, extras) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
}

/** The document as the routes declare it, finished. */
function finishDocument(document: OpenApiDocument, extras: ApiDocumentExtras): OpenApiDocument {
  const withKeys = withIdempotencyKeys(document);
  const paths: NonNullable<OpenApiDocument['paths']> = {};
  for (const [path, operations] of Object.entries(withKeys.paths ?? {})) {
    paths[path] = Object.fromEntries(
      Object.entries(operations).map(([method, operation]) => [method, finishOperation(operation, extras)]),
    );
  }
  const used = new Set(
    Object.values(paths).flatMap((operations) => Object.values(operations).flatMap((o) => o.tags ?? [])),
  );
  const tags = [...used].map((name) => ({ name, description: extras.tags[name] ?? name }));
  const named = withNamedSchemas({ ...withKeys, paths, webhooks: extras.webhooks });
  const { openapi, info, servers, ...rest } = named as OpenApiDocument & Record<string, unknown>;
  return { openapi, info, servers, tags, ...rest } as OpenApiDocument;
}

/** An operation's mark that its body may be left out (actions.ts optionalBody). */
export const OPTIONAL_BODY = 'x-optional-body';

function finishOperation(operation: OpenApiOperation, extras: ApiDocumentExtras): OpenApiOperation {
  const { [OPTIONAL_BODY]: optionalBody, ...rest } = operation;
  const finished: OpenApiOperation = { ...rest };
  if (optionalBody && finished.requestBody)
    finished.requestBody = { ...finished.requestBody, required: false };
  if (operation.parameters) finished.parameters = operation.parameters.map(queryParameter);
  const responses = { ...operation.responses };
  // Every authenticated operation may answer 401, and one with a body 415 and 422, documented or not.
  if (!Object.keys(responses).some((s) => s.startsWith('4'))) {
    if (operation.security?.length !== 0) responses['401'] = errorResponse();
    if (operation.requestBody) {
      responses['415'] = errorResponse();
      responses['422'] = errorResponse();
    }
  }
  const examples = operation.operationId ? extras.examples[operation.operationId] : undefined;
  if (examples?.answer) {
    const answer = responses[examples.answer.status];
    const json = answer?.content?.['application/json'];
    if (answer && json) {
      responses[examples.answer.status] = {
        ...answer,
        content: { 'application/json': { ...json, examples: examples.answer.examples } },
      };
    }
  }
  finished.responses = responses;
  const json = operation.requestBody?.content?.['application/json'];
  if (examples?.request && operation.requestBody && json) {
    finished.requestBody = {
      ...finished.requestBody,
      content: {
        ...operation.requestBody.content,
        'application/json': { ...json, examples: examples.request },
      },
    };
  }
  return finished;
}

interface OpenApiParameter {
  in?: string;
  name?: string;
  required?: boolean;
  schema?: { type?: unknown; default?: unknown; properties?: Record<string, unknown> };
  [key: string]: unknown;
}

/**
 * A query parameter as clients must send it. One with a default is optional (page, pageLimit). A
 * search parameter (fields.ts SearchParam) is an object sent in brackets, `search[name]=tomato`:
 * `style: deepObject` with its named keys, so that Swagger UI and generated clients send what the
 * server reads; `search[]=term` and `search=term`, which the server also reads, are in its description.
 */
function queryParameter(parameter: unknown): unknown {
  const p = parameter as OpenApiParameter;
  if (p.in !== 'query' || !p.schema) return parameter;
  const types = Array.isArray(p.schema.type) ? p.schema.type : [p.schema.type];
  if (types.includes('object') && types.includes('array')) {
    const keys = Object.keys(p.schema.properties ?? {});
    return {
      ...p,
      style: 'deepObject',
      explode: true,
      schema: {
        type: 'object',
        properties: Object.fromEntries(keys.map((key) => [key, { type: 'string', maxLength: 255 }])),
        ...(keys.length === 0 ? { additionalProperties: { type: 'string', maxLength: 255 } } : {}),
      },
    };
  }
  if (p.required && p.schema.default !== undefined) return { ...p, required: false };
  return parameter;
}

function errorResponse() {
  return {
    description: 'The error shape',
    content: { 'application/json': { schema: JSON.parse(JSON.stringify(ErrorAnswer)) } },
  };
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

interface OpenApiContent {
  'application/json'?: Record<string, unknown>;
  [type: string]: Record<string, unknown> | undefined;
}

interface OpenApiOperation {
  [OPTIONAL_BODY]?: boolean;
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: { content?: OpenApiContent; [key: string]: unknown };
  responses?: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: OpenApiContent }
  >;
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
  const errorAnswer = responses['401'] ?? errorResponse();
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
