// GET /api/today, for every role.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { errorAnswers } from '../../platform/resource/answers.js';
import { type ResourceDeps, requestContext } from '../../platform/resource/request.js';
import { TodayAnswer, TodayQuery } from './today.schemas.js';
import { today } from './today.service.js';

export async function todayRoutes(app: FastifyInstance, { deps }: { deps: ResourceDeps }): Promise<void> {
  app.get(
    '/api/today',
    {
      schema: {
        tags: ['today'],
        operationId: 'getToday',
        summary: 'What needs attention today, in one call',
        description:
          'Counts and the first `limit` items of: active alerts, offline devices, overdue tasks and ' +
          "today's tasks not done (staff: only theirs; today is the day in `tz`), harvest batches " +
          'waiting for confirmation, and paused webhook endpoints (owners; null for staff).',
        querystring: TodayQuery,
        response: { 200: TodayAnswer, ...errorAnswers(401, 422) },
      },
    },
    async (request) => today(requestContext(request, deps), request.query as Static<typeof TodayQuery>),
  );
}
