import { resourceRoutes } from '../../platform/resource/routes.js';
import { Season, SeasonCreate, SeasonListItem, SeasonQuery, SeasonUpdate } from './season.schemas.js';
import { seasonService } from './season.service.js';

export const seasonRoutes = resourceRoutes({
  tag: 'seasons',
  noun: 'season',
  path: '/api/crop/season',
  gluedDetailPath: true,
  // The farm app's rule ("all read, owner write"), kept by the API for every client.
  ownerOnlyWrites: true,
  description:
    'An empty or missing code is generated (unique in the tenant); status defaults to "Pending". ' +
    'Everyone in the tenant reads seasons; only owners create, change or delete them (staff: 403).',
  schemas: {
    item: Season,
    listItem: SeasonListItem,
    create: SeasonCreate,
    update: SeasonUpdate,
    query: SeasonQuery,
  },
  service: seasonService,
});
