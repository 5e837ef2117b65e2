import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/types.js';
import { authOf, scopeOf } from '../../platform/http/auth.js';
import { ErrorAnswer } from '../../platform/resource/answers.js';
import { Id } from '../../platform/resource/fields.js';
import { PAGING_DESCRIPTION, PageQueryProperties, setPagingHeaders } from '../../platform/resource/paging.js';
import type { OutboxDeps } from '../webhooks/outbox.js';
import { listBatches } from './harvest.repository.js';
import { Batch, BatchCreate, BatchQuery } from './harvest.schemas.js';
import { confirmBatch, declareBatch, getBatch, toBatchAnswer } from './harvest.service.js';

export interface HarvestRouteDeps extends OutboxDeps {
  db: Kysely<Database>;
  clock: Clock;
}

const errors = (...codes: number[]) => Object.fromEntries(codes.map((code) => [code, ErrorAnswer]));
const IdParams = Type.Object({ id: Id('Batch id') });
const One = Type.Array(Batch, { maxItems: 1 });

export const harvestRoutes: FastifyPluginAsyncTypebox<{ deps: HarvestRouteDeps }> = async (app, { deps }) => {
  const path = '/api/harvest/batches';
  const ListQuery = Type.Object(
    { ...PageQueryProperties, ...BatchQuery.properties },
    { additionalProperties: true },
  );

  app.get(
    path,
    {
      schema: {
        tags: ['harvest'],
        summary: 'Harvest batches, newest first',
        description: `A plain JSON array; filter with status. ${PAGING_DESCRIPTION}`,
        querystring: ListQuery,
        response: { 200: Type.Array(Batch), ...errors(401, 422) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const { rows, ...paging } = await listBatches(
        scopeOf(request, deps.db),
        { status: query.status },
        query,
      );
      setPagingHeaders(request, reply, query, paging);
      return rows.map(toBatchAnswer);
    },
  );

  app.post(
    path,
    {
      schema: {
        tags: ['harvest'],
        summary: 'Declare a harvest batch',
        description:
          'Status `declared`; HTTP 201 with Location, an array of one. Confirm it to raise harvest.batch.created.',
        body: BatchCreate,
        response: { 201: One, ...errors(401, 422) },
      },
    },
    async (request, reply) => {
      const batch = await declareBatch(
        deps,
        scopeOf(request, deps.db),
        authOf(request).user.id,
        request.body,
      );
      reply.code(201).header('location', `${path}/${batch.id}`);
      return [batch];
    },
  );

  app.get(
    `${path}/:id`,
    {
      schema: {
        tags: ['harvest'],
        summary: 'One harvest batch',
        params: IdParams,
        response: { 200: One, ...errors(401, 404) },
      },
    },
    async (request) => [await getBatch(scopeOf(request, deps.db), request.params.id)],
  );

  app.post(
    `${path}/:id/confirm`,
    {
      schema: {
        tags: ['harvest'],
        summary: 'Confirm a declared batch',
        description:
          'Sets status `confirmed` and confirmed_at, and raises harvest.batch.created in the same transaction. ' +
          'A batch is confirmed once: a second confirm answers 409 and raises nothing.',
        params: IdParams,
        response: { 200: One, ...errors(401, 404, 409) },
      },
    },
    async (request) => [
      await confirmBatch(deps, scopeOf(request, deps.db), authOf(request).user.id, request.params.id),
    ],
  );
};
