import { resourceRoutes } from '../../platform/resource/routes.js';
import {
  DiaryCategory,
  DiaryCategoryInput,
  DiarySubcategory,
  DiarySubcategoryInput,
  DiarySubcategoryQuery,
  Task,
  TaskCreate,
  TaskQuery,
  TaskUpdate,
} from './diary.schemas.js';
import { diaryCategoryService, diarySubcategoryService, taskService } from './diary.service.js';

export const taskRoutes = resourceRoutes({
  tag: 'diary',
  noun: 'production-diary task',
  path: '/api/diary/production',
  description: "The creating user is the token's user. start defaults to the time of creation.",
  schemas: { item: Task, create: TaskCreate, update: TaskUpdate, query: TaskQuery },
  service: taskService,
});

export const diaryCategoryRoutes = resourceRoutes({
  tag: 'diary',
  noun: 'task category (stage)',
  path: '/api/diary/categories',
  schemas: { item: DiaryCategory, create: DiaryCategoryInput.create, update: DiaryCategoryInput.update },
  service: diaryCategoryService,
});

export const diarySubcategoryRoutes = resourceRoutes({
  tag: 'diary',
  noun: 'task sub-category',
  path: '/api/diary/subcategories',
  schemas: {
    item: DiarySubcategory,
    create: DiarySubcategoryInput.create,
    update: DiarySubcategoryInput.update,
    query: DiarySubcategoryQuery,
  },
  service: diarySubcategoryService,
});
