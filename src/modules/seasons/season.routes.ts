import { resourceRoutes } from '../../platform/resource/routes.js';
import { Season, SeasonCreate, SeasonListItem, SeasonQuery, SeasonUpdate } from './season.schemas.js';
import { seasonService } from './season.service.js';

export const seasonRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'seasons',
  noun: 'season',
  path: '/api/crop/season',
  gluedDetailPath: true,
  description: 'An empty or missing code is generated (unique in the tenant); status defaults to "Pending".',
  schemas: {
    item: Season,
    listItem: SeasonListItem,
    create: SeasonCreate,
    update: SeasonUpdate,
    query: SeasonQuery,
  },
  service: seasonService,
});
