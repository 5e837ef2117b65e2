import { resourceRoutes } from '../../platform/resource/routes.js';
import { Template, TemplateCreate, TemplateQuery } from './template.schemas.js';
import { templateService } from './template.service.js';

// No update: PUT on a template answers 405 (spec 4.7).
export const templateRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'season templates',
  noun: 'season template',
  path: '/api/template/season',
  gluedDetailPath: true,
  envelope: 'data',
  schemas: { item: Template, create: TemplateCreate, query: TemplateQuery },
  service: templateService,
});
