import { resourceRoutes } from '../../platform/resource/routes.js';
import { User, UserCreate, UserUpdate } from './user.schemas.js';
import { userResourceService } from './user.service.js';

export const userRoutes = resourceRoutes({
  tag: 'users',
  noun: 'user',
  path: '/api/users',
  ownerOnlyWrites: true,
  description: 'Owners only (staff: 403). The password is stored as an argon2id hash and never answered.',
  schemas: { item: User, create: UserCreate, update: UserUpdate },
  service: userResourceService,
});
