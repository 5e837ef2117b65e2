import { resourceRoutes } from '../../platform/resource/routes.js';
import { Category, CategoryCreate, CategoryUpdate } from './category.schemas.js';
import { categoryService } from './category.service.js';

export const categoryRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'product categories',
  noun: 'product category',
  path: '/api/productcategory/productcategory',
  aliases: { 'parent-id': 'parent_id' },
  schemas: { item: Category, create: CategoryCreate, update: CategoryUpdate },
  service: categoryService,
});
