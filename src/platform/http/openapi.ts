// OpenAPI 3.1 generated from the route schemas, at /openapi.json; an interactive reference at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

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
      },
      security: [{ bearerAuth: [] }, { tokenQuery: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
}
