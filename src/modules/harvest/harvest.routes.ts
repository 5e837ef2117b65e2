import { Type } from 'typebox';
import { action, report } from '../../platform/resource/actions.js';
import { PAGING_DESCRIPTION } from '../../platform/resource/paging.js';
import { resourceRoutes } from '../../platform/resource/routes.js';
import { Batch, BatchCreate, BatchQuery, Totals, TotalsQuery } from './harvest.schemas.js';
import { confirmBatch, declareBatch, getBatch, harvestTotals, listBatches } from './harvest.service.js';

const path = '/api/harvest/batches';

/**
 * Batches are declared (by anyone) and confirmed (by owners), never changed or deleted: list,
 * declare, one, confirm; and the totals over them.
 */
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
      operationId: 'confirmHarvestBatch',
      path: `${path}/:id/confirm`,
      idDescription: 'Batch id',
      summary: 'Confirm a declared batch (owners)',
      description:
        'Sets status `confirmed` and confirmed_at, and raises harvest.batch.created in the same transaction. ' +
        'A batch is confirmed once: a second confirm answers 409 and raises nothing. Staff declare, owners confirm: ' +
        'staff get 403.',
      ownerOnly: true,
      answer: Type.Array(Batch, { maxItems: 1 }),
      errors: [401, 404, 409],
      run: async (ctx, { id }) => [await confirmBatch(ctx, id)],
    }),
    report({
      tag: 'harvest',
      operationId: 'getHarvestTotals',
      path: '/api/harvest/totals',
      summary: 'Kilograms and batches per crop type or parcel',
      description:
        'One entry per crop type (`by=crop_type`) or parcel (`by=parcel`) with batches harvested between ' +
        '`from` and `to` (either optional; default all time; a date-only `to` includes its whole day), ' +
        'largest total first. Counts confirmed batches unless `status` says `declared` or `all`. ' +
        'A plain JSON array, not paged.',
      query: TotalsQuery,
      answer: Totals,
      errors: [401, 422],
      run: (ctx, query) => harvestTotals(ctx, query),
    }),
  ],
});
