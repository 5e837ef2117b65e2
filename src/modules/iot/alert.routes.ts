import { PAGING_DESCRIPTION } from '../../platform/resource/paging.js';
import { resourceRoutes } from '../../platform/resource/routes.js';
import { Alert, AlertQuery } from './alert.schemas.js';
import { listAlertAnswers } from './alert.service.js';

/** Alerts are raised by readings, never sent: the resource is its list. */
export const alertRoutes = resourceRoutes({
  tag: 'iot',
  noun: 'alert',
  path: '/api/iot/alerts',
  docs: {
    list: {
      summary: 'Alerts raised, newest first',
      description: `A plain JSON array. ${PAGING_DESCRIPTION}`,
    },
  },
  schemas: { item: Alert, query: AlertQuery },
  service: { list: listAlertAnswers },
});
