import { resourceRoutes } from '../../platform/resource/routes.js';
import { Crop, CropCreate, CropListItem, CropQuery, CropUpdate } from './crop.schemas.js';
import { cropService } from './crop.service.js';

export const cropRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'crops',
  noun: 'crop or livestock item',
  name: 'Crop',
  path: '/api/crop/crop',
  aliases: { category_id_: 'category_id' },
  schemas: { item: Crop, listItem: CropListItem, create: CropCreate, update: CropUpdate, query: CropQuery },
  service: cropService,
});
