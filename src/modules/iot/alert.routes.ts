import { Type } from 'typebox';
import { action } from '../../platform/resource/actions.js';
import { PAGING_DESCRIPTION } from '../../platform/resource/paging.js';
import { resourceRoutes } from '../../platform/resource/routes.js';
import { Alert, AlertQuery } from './alert.schemas.js';
import { acknowledgeAlert, getAlert, listAlertAnswers } from './alert.service.js';

const path = '/api/iot/alerts';

/** Alerts are raised by readings, never sent: the resource is its list, one alert, and acknowledge. */
export const alertRoutes = resourceRoutes({
  tag: 'iot',
  noun: 'alert',
  path,
  idDescription: 'Alert id',
  docs: {
    list: {
      summary: 'Alerts raised, newest first',
      description: `A plain JSON array; filter with device_id, status, severity and acknowledged. ${PAGING_DESCRIPTION}`,
    },
    get: { summary: 'One alert' },
  },
  schemas: { item: Alert, query: AlertQuery },
  service: { list: listAlertAnswers, get: getAlert },
  routes: [
    action({
      tag: 'iot',
      operationId: 'acknowledgeAlert',
      path: `${path}/:id/acknowledge`,
      idDescription: 'Alert id',
      summary: 'Acknowledge an alert',
      description:
        'Sets acknowledged_at (now) and acknowledged_by (the acting user). Any user of the tenant may; ' +
        'acknowledging again keeps the first acknowledgement and answers the alert unchanged. ' +
        'Answers the alert as an array of one.',
      answer: Type.Array(Alert, { maxItems: 1 }),
      errors: [401, 404],
      run: async (ctx, { id }) => [await acknowledgeAlert(ctx, id)],
    }),
  ],
});
