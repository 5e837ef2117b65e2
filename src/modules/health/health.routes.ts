import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DatabaseHandle } from '../../platform/db/database.js';
import { unavailableReason } from '../../platform/db/unavailable.js';
import { AppError } from '../../platform/errors.js';
import { sendDatabaseUnavailable } from '../../platform/http/error-handler.js';
import { sendError } from '../../platform/http/error-shape.js';

const Status = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{
  deps: { database: Pick<DatabaseHandle, 'ping'> };
}> = async (app, { deps }) => {
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: {
        tags: ['health'],
        operationId: 'getHealth',
        summary: 'The process is up',
        security: [],
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: {
        tags: ['health'],
        operationId: 'getReadiness',
        summary: 'The database answers',
        description:
          'HTTP 503 in the error shape when it does not, with the reason in meta.message and Retry-After.',
        security: [],
        response: { 200: Status },
      },
    },
    async (request, reply) => {
      try {
        await deps.database.ping();
        return { status: 'ready' };
      } catch (err) {
        const reason = unavailableReason(err);
        if (reason) return sendDatabaseUnavailable(request, reply, reason, err);
        request.log.error({ err }, 'readiness check failed');
        return sendError(reply, new AppError('http.unavailable', 503));
      }
    },
  );
};
