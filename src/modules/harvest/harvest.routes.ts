import { Type } from 'typebox';
import { action } from '../../platform/resource/actions.js';
import { PAGING_DESCRIPTION } from '../../platform/resource/paging.js';
import { resourceRoutes } from '../../platform/resource/routes.js';
import { Batch, BatchCreate, BatchQuery } from './harvest.schemas.js';
import { confirmBatch, declareBatch, getBatch, listBatches } from './harvest.service.js';

const path = '/api/harvest/batches';

/** Batches are declared and confirmed, never changed or deleted: list, declare, one, confirm. */
export const harvestRoutes = resourceRoutes({
  tag: 'harvest',
  noun: 'harvest batch',
  path,
  idDescription: 'Batch id',
  bodyChecks: false,
  docs: {
    list: {
      summary: 'Harvest batches, newest first',
      description: `A plain JSON array; filter with status. ${PAGING_DESCRIPTION}`,
    },
    get: { summary: 'One harvest batch' },
    create: {
      summary: 'Declare a harvest batch',
      description:
        'Status `declared`; HTTP 201 with Location, an array of one. Confirm it to raise harvest.batch.created.',
      errors: [401, 422],
    },
  },
  schemas: { item: Batch, create: BatchCreate, query: BatchQuery },
  service: { list: listBatches, get: getBatch, create: declareBatch },
  routes: [
    action({
      tag: 'harvest',
      path: `${path}/:id/confirm`,
      idDescription: 'Batch id',
      summary: 'Confirm a declared batch',
      description:
        'Sets status `confirmed` and confirmed_at, and raises harvest.batch.created in the same transaction. ' +
        'A batch is confirmed once: a second confirm answers 409 and raises nothing.',
      answer: Type.Array(Batch, { maxItems: 1 }),
      errors: [401, 404, 409],
      run: async (ctx, { id }) => [await confirmBatch(ctx, id)],
    }),
  ],
});
