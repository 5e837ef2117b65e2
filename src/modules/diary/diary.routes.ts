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
  cacheReads: true,
  tag: 'diary',
  noun: 'production-diary task',
  name: 'Task',
  path: '/api/diary/production',
  description: "The creating user is the token's user. start defaults to the time of creation.",
  docs: {
    update: {
      summary: 'Change a production-diary task',
      description:
        'Changes only the fields sent; null clears a field that may be null. Answers ' +
        '[{status_code: 0, message}], or with `Prefer: return=representation` the changed record as an ' +
        'array of one. `done: true|false` marks the task done or open. Owners change any task; staff ' +
        'only tasks assigned to them, and only `done`, `description` and `end` (anything else: 403).',
      errors: [401, 403, 404, 422],
    },
    remove: {
      summary: 'Delete a production-diary task',
      description: 'Soft delete (extension): the record leaves lists and details. Owners only (staff: 403).',
      errors: [401, 403, 404, 422],
    },
  },
  schemas: { item: Task, create: TaskCreate, update: TaskUpdate, query: TaskQuery },
  service: taskService,
});

export const diaryCategoryRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'diary',
  noun: 'task category (stage)',
  name: 'TaskCategory',
  path: '/api/diary/categories',
  schemas: { item: DiaryCategory, create: DiaryCategoryInput.create, update: DiaryCategoryInput.update },
  service: diaryCategoryService,
});

export const diarySubcategoryRoutes = resourceRoutes({
  cacheReads: true,
  tag: 'diary',
  noun: 'task sub-category',
  name: 'TaskSubcategory',
  path: '/api/diary/subcategories',
  schemas: {
    item: DiarySubcategory,
    create: DiarySubcategoryInput.create,
    update: DiarySubcategoryInput.update,
    query: DiarySubcategoryQuery,
  },
  service: diarySubcategoryService,
});
