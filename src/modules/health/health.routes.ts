import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { pingDatabase } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/types.js';
import { sendError } from '../../platform/http/error-shape.js';
import { translate } from '../../platform/i18n.js';

const Status = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: { db: Kysely<Database> } }> = async (
  app,
  { deps },
) => {
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: { tags: ['health'], summary: 'The process is up', security: [], response: { 200: Status } },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: { tags: ['health'], summary: 'The database answers', security: [], response: { 200: Status } },
    },
    async (request, reply) => {
      try {
        await pingDatabase(deps.db);
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
        return sendError(reply, 503, translate('http.unavailable', request.language));
      }
    },
  );
};
