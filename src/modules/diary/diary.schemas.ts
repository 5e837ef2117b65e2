// Production-diary tasks (spec 2.4) and their categories (stages) and sub-categories (extension).
import { Type } from 'typebox';
import {
  DateFilter,
  ImagesInput,
  LONG_TEXT,
  MAX_ID,
  Name,
  NullableId,
  NullableInteger,
  RefInput,
  SearchParam,
  Text,
  TimestampInput,
} from '../../platform/resource/fields.js';

export const DiaryCategory = Type.Object({ id: Type.Integer(), name: Type.String() });
export const DiaryCategoryInput = {
  create: Type.Object({ name: Name('Required') }, { additionalProperties: true }),
  update: Type.Object({ name: Type.Optional(Name()) }, { additionalProperties: true }),
};

export const DiarySubcategory = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  category_task_id: Type.Integer(),
});
export const DiarySubcategoryInput = {
  create: Type.Object(
    { name: Name('Required'), category_task_id: RefInput('Task category id (required)') },
    { additionalProperties: true },
  ),
  update: Type.Object(
    { name: Type.Optional(Name()), category_task_id: Type.Optional(RefInput('Task category id')) },
    { additionalProperties: true },
  ),
};
export const DiarySubcategoryQuery = Type.Object({
  category_task_id: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Only this category' }),
  ),
});

const Named = Type.Object({ id: Type.Integer(), name: Type.String() });
/** The user object of spec 2.8. */
export const TaskUser = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  firstname: Type.String(),
  lastname: Type.String(),
  picture: Type.Union([Type.String(), Type.Null()]),
});

export const Task = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  start: Type.String({ description: 'YYYY-MM-DD HH:MM:SS (UTC)' }),
  end: Type.Union([Type.String(), Type.Null()], { description: 'YYYY-MM-DD HH:MM:SS (UTC)' }),
  description: Type.String(),
  images: Type.Array(Type.String()),
  location: Type.String(),
  category_task_id: NullableId(),
  category: Type.Union([Named, Type.Null()]),
  assigned_to: NullableId(),
  assigned: Type.Union([TaskUser, Type.Null()]),
  season_id: NullableId(),
  season: Type.Union([Named, Type.Null()]),
  user_id: Type.Integer({ description: 'Creating user' }),
  user: TaskUser,
  sub_cates: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      pivot: Type.Object({ production_daily_id: Type.Integer(), sub_cate_id: Type.Integer() }),
    }),
  ),
  amount: Type.Union([Type.Integer(), Type.Null()]),
  done_at: Type.Union([Type.String(), Type.Null()], {
    description: 'Extension: when the task was marked done, YYYY-MM-DD HH:MM:SS (UTC); null until done',
  }),
  done_by: NullableId('Extension: the user who marked the task done; null until done'),
  overdue: Type.Boolean({ description: 'Extension: its end has passed and it is not done' }),
});

/** An id, or (assigned_to[]) an array holding one id. */
const RefOrListOfOne = (description: string) =>
  Type.Unsafe<number | null | number[]>({
    type: ['integer', 'null', 'array'],
    minimum: 0,
    maximum: MAX_ID,
    items: { type: 'integer', minimum: 0, maximum: MAX_ID },
    maxItems: 1,
    description,
  });

export const SubCatesInput = Type.Unsafe<(number | { id: number })[]>({
  type: 'array',
  maxItems: 100,
  items: {
    type: ['integer', 'object'],
    minimum: 1,
    maximum: MAX_ID,
    properties: { id: { type: 'integer', minimum: 1, maximum: MAX_ID } },
    required: ['id'],
  },
  description: "Sub-category ids (objects with id are accepted too); replaces the task's list",
});

const TaskFields = {
  description: Type.Optional(Text(LONG_TEXT, 'May contain HTML')),
  start: Type.Optional(TimestampInput('Start; defaults to the time of creation')),
  end: Type.Optional(TimestampInput('End; null clears')),
  location: Type.Optional(Text(1000, 'Address')),
  images: Type.Optional(ImagesInput),
  season_id: Type.Optional(RefInput('Season id')),
  category_task_id: Type.Optional(RefInput('Task category (stage) id')),
  assigned_to: Type.Optional(RefOrListOfOne('Assigned staff member (user id)')),
  sub_cates: Type.Optional(SubCatesInput),
  amount: Type.Optional(NullableInteger({ minimum: 0 })),
  done: Type.Optional(
    Type.Boolean({
      description:
        'Extension: true marks the task done (done_at now, done_by the acting user; a done task keeps ' +
        'them), false clears both',
    }),
  ),
};

/** What staff may send when they change a task assigned to them; any other field is a 403. */
export const STAFF_TASK_FIELDS: ReadonlySet<string> = new Set(['done', 'description', 'end']);
/** Every field a task update reads (unknown fields are ignored, so staff may send those). */
export const TASK_UPDATE_FIELDS: ReadonlySet<string> = new Set(['name', ...Object.keys(TaskFields)]);

export const TaskCreate = Type.Object(
  { name: Name('Required'), ...TaskFields },
  { additionalProperties: true },
);
export const TaskUpdate = Type.Object(
  { name: Type.Optional(Name()), ...TaskFields },
  { additionalProperties: true },
);

export const TaskQuery = Type.Object({
  strSearch: Type.Optional(
    SearchParam('strSearch[]=term: case-insensitive substring of the task name', ['name']),
  ),
  from_date: Type.Optional(DateFilter('Tasks that end (or start) at or after this time')),
  to_date: Type.Optional(
    DateFilter('Tasks that start at or before this time (a date includes its whole day)'),
  ),
  done: Type.Optional(
    Type.Boolean({ description: 'Extension: true: only done tasks; false: only open ones' }),
  ),
  season_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Only this season' })),
  assigned_to: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Only tasks assigned to this user' }),
  ),
  category_task_id: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'Only this task category (stage)' }),
  ),
});
