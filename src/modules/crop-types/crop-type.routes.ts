import { resourceRoutes } from '../../platform/resource/routes.js';
import { CropType, CropTypeCreate, CropTypeUpdate } from './crop-type.schemas.js';
import { cropTypeService } from './crop-type.service.js';

export const cropTypeRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'crop types',
  noun: 'crop type',
  path: '/api/croptype/croptype',
  aliases: { 'parent-id': 'parent_id' },
  schemas: { item: CropType, create: CropTypeCreate, update: CropTypeUpdate },
  service: cropTypeService,
});
