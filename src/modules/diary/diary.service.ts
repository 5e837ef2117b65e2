import type { Static } from 'typebox';
import { formatTimestamp, parseTimestamp } from '../../platform/dates.js';
import { columnFilter, keyedFilter } from '../../platform/db/keyed-filters.js';
import { containsText, type Filter, findByIds, findLive } from '../../platform/db/records.js';
import { type FieldError, forbidden, notFound } from '../../platform/errors.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import {
  dateRange,
  definedOnly,
  imagesToJson,
  optional,
  parseJsonArray,
  refOrNull,
  searchTerms,
} from '../../platform/resource/input.js';
import { type RequestColumns, type Row, recordService } from '../../platform/resource/record-service.js';
import { findTaskSubcategories, overlapsRange, replaceTaskSubcategories } from './diary.repository.js';
import {
  type DiaryCategoryInput,
  type DiarySubcategoryInput,
  type DiarySubcategoryQuery,
  STAFF_TASK_FIELDS,
  TASK_UPDATE_FIELDS,
  type TaskCreate,
  type TaskQuery,
  type TaskUpdate,
} from './diary.schemas.js';

export const diaryCategoryService = recordService<
  'diary_categories',
  Static<typeof DiaryCategoryInput.create>,
  Static<typeof DiaryCategoryInput.update>,
  object
>({
  table: 'diary_categories',
  present: (_ctx, rows) => rows.map((row) => ({ id: row.id, name: row.name })),
  toColumns: (input) => definedOnly({ name: input.name } satisfies RequestColumns<'diary_categories'>),
});

export const diarySubcategoryService = recordService<
  'diary_subcategories',
  Static<typeof DiarySubcategoryInput.create>,
  Static<typeof DiarySubcategoryInput.update>,
  Static<typeof DiarySubcategoryQuery>
>({
  table: 'diary_subcategories',
  present: (_ctx, rows) =>
    rows.map((row) => ({ id: row.id, name: row.name, category_task_id: row.category_task_id })),
  toColumns: (input) =>
    definedOnly({
      name: input.name,
      category_task_id: input.category_task_id,
    } satisfies RequestColumns<'diary_subcategories'>),
  references: (c) => [
    {
      field: 'category_task_id',
      table: 'diary_categories',
      id: c.category_task_id === null ? 0 : c.category_task_id,
    },
  ],
  check: async (_ctx, c, errors, id) => {
    if (id === undefined && c.category_task_id === undefined) {
      errors.push({ field: 'category_task_id', message: 'field.required' });
    }
  },
  filters: (_ctx, { category_task_id: id }) =>
    id === undefined ? [] : [(eb) => eb('diary_subcategories.category_task_id', '=', id)],
});

type TaskInput = Static<typeof TaskCreate> | Static<typeof TaskUpdate>;

const presentUser = (row: Row<'users'>) => ({
  id: row.id,
  name: row.name,
  firstname: row.firstname,
  lastname: row.lastname,
  picture: row.picture,
});

async function presentTasks(ctx: RequestContext, rows: Row<'diary_tasks'>[]) {
  const [categories, seasons, users, subCates] = await Promise.all([
    findByIds(
      ctx.scope,
      'diary_categories',
      rows.map((r) => r.category_task_id),
    ),
    findByIds(
      ctx.scope,
      'seasons',
      rows.map((r) => r.season_id),
    ),
    findByIds(
      ctx.scope,
      'users',
      rows.flatMap((r) => [r.user_id, r.assigned_to]),
    ),
    findTaskSubcategories(
      ctx.scope,
      rows.map((r) => r.id),
    ),
  ]);
  const named = (row: { id: number; name: string } | undefined) =>
    row ? { id: row.id, name: row.name } : null;
  const userOf = (id: number | null) => {
    const row = id === null ? undefined : users.get(id);
    return row ? presentUser(row) : null;
  };
  const now = ctx.clock.now();
  // A task not done falls overdue once its end passes: the answer changes then, with no write.
  for (const row of rows) {
    if (row.done_at === null && row.end_at !== null && Number(row.end_at) >= now)
      ctx.changesAt?.(Number(row.end_at));
  }
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    start: formatTimestamp(row.start_at === null ? row.created_at : Number(row.start_at)),
    end: formatTimestamp(row.end_at === null ? null : Number(row.end_at)),
    description: row.description,
    images: parseJsonArray(row.images).map(String),
    location: row.location,
    category_task_id: row.category_task_id,
    category: named(row.category_task_id === null ? undefined : categories.get(row.category_task_id)),
    assigned_to: row.assigned_to,
    assigned: userOf(row.assigned_to),
    season_id: row.season_id,
    season: named(row.season_id === null ? undefined : seasons.get(row.season_id)),
    user_id: row.user_id,
    user: userOf(row.user_id) ?? { id: row.user_id, name: '', firstname: '', lastname: '', picture: null },
    sub_cates: subCates
      .filter((s) => s.task_id === row.id)
      .map((s) => ({
        id: s.sub_cate_id,
        name: s.name,
        pivot: { production_daily_id: row.id, sub_cate_id: s.sub_cate_id },
      })),
    amount: row.amount === null ? null : Number(row.amount),
    done_at: formatTimestamp(row.done_at === null ? null : Number(row.done_at)),
    done_by: row.done_by,
    overdue: isOverdue(row, now),
  }));
}

/** A task is overdue when its end has passed and it is not done; a task without an end never is. */
export function isOverdue(row: { end_at: number | null; done_at: number | null }, now: number): boolean {
  return row.done_at === null && row.end_at !== null && Number(row.end_at) < now;
}

const subCateIds = (input: TaskInput): number[] | undefined =>
  input.sub_cates === undefined
    ? undefined
    : [...new Set(input.sub_cates.map((s) => (typeof s === 'number' ? s : s.id)))];

function taskColumns(
  input: TaskInput,
  errors: FieldError[],
  ctx: RequestContext,
): RequestColumns<'diary_tasks'> {
  const timestamp = (field: 'start' | 'end') => {
    const value = input[field];
    if (value === undefined || value === null) return value;
    if (value === '') return null;
    const ms = parseTimestamp(value);
    if (ms === undefined) errors.push({ field, message: 'field.format', params: { format: 'timestamp' } });
    return ms;
  };
  const assigned = Array.isArray(input.assigned_to) ? (input.assigned_to[0] ?? null) : input.assigned_to;
  const columns = definedOnly({
    name: input.name,
    description: input.description,
    start_at: timestamp('start'),
    end_at: timestamp('end'),
    location: input.location,
    images: optional(input.images, (v) => imagesToJson('images', v, errors)),
    season_id: refOrNull(input.season_id),
    category_task_id: refOrNull(input.category_task_id),
    assigned_to: refOrNull(assigned),
    amount: input.amount,
    done_at: optional(input.done, (done) => (done ? ctx.clock.now() : null)),
    done_by: optional(input.done, (done) => (done ? ctx.user.id : null)),
  } satisfies RequestColumns<'diary_tasks'>);
  if (columns.start_at === null) errors.push({ field: 'start', message: 'field.required' });
  const { start_at: start, end_at: end } = columns;
  if (typeof start === 'number' && typeof end === 'number' && end < start) {
    errors.push({ field: 'end', message: 'field.invalid' });
  }
  return columns;
}

function taskFilters(ctx: RequestContext, query: Static<typeof TaskQuery>): Filter<'diary_tasks'>[] {
  const { terms, byKey } = searchTerms(query.strSearch);
  const filters: Filter<'diary_tasks'>[] = [...terms, ...Object.values(byKey)].map((term) =>
    containsText(ctx.scope, 'diary_tasks', ['name'], term),
  );
  if (query.done !== undefined) {
    const done = query.done;
    filters.push(
      keyedFilter(ctx.scope, done ? 'task done' : 'task not done', [], (eb) =>
        eb('diary_tasks.done_at', done ? 'is not' : 'is', null),
      ),
    );
  }
  for (const column of ['season_id', 'assigned_to', 'category_task_id'] as const) {
    const id = query[column];
    if (id !== undefined) filters.push(columnFilter(ctx.scope, 'diary_tasks', column, '=', id));
  }
  return [...filters, ...overlapsRange(ctx.scope, dateRange(query))];
}

const tasks = recordService<
  'diary_tasks',
  Static<typeof TaskCreate>,
  Static<typeof TaskUpdate>,
  Static<typeof TaskQuery>
>({
  table: 'diary_tasks',
  present: presentTasks,
  toColumns: taskColumns,
  // An update that sends one side of the range is compared with the stored other side.
  check: async (ctx, c, errors, id) => {
    if (id === undefined || (c.start_at === undefined) === (c.end_at === undefined)) return;
    const stored = await findLive(ctx.scope, 'diary_tasks', id);
    const start = c.start_at === undefined ? stored?.start_at : c.start_at;
    const end = c.end_at === undefined ? stored?.end_at : c.end_at;
    if (start != null && end != null && Number(end) < Number(start)) {
      errors.push({ field: c.end_at === undefined ? 'start' : 'end', message: 'field.invalid' });
    }
  },
  onCreate: (ctx, columns) => ({ start_at: ctx.clock.now(), ...columns, user_id: ctx.user.id }),
  references: (c, input) => [
    { field: 'season_id', table: 'seasons', id: c.season_id },
    { field: 'category_task_id', table: 'diary_categories', id: c.category_task_id },
    { field: 'assigned_to', table: 'users', id: c.assigned_to },
    { field: 'sub_cates', table: 'diary_subcategories', id: subCateIds(input) },
  ],
  afterWrite: async (ctx, id, input) => {
    const ids = subCateIds(input);
    if (ids !== undefined) await replaceTaskSubcategories(ctx.scope, id, ids);
  },
  filters: taskFilters,
});

/**
 * Tasks as the record service keeps them, with who may change what: owners change any task; staff
 * change only tasks assigned to them, and only `done`, `description` and `end` (any other field
 * they send is a 403, as is deleting). Marking a done task done again keeps who did it and when.
 */
export const taskService = {
  list: (ctx: RequestContext, query: PageQuery & Static<typeof TaskQuery>) => tasks.list(ctx, query),
  get: tasks.get,
  lock: tasks.lock,
  create: tasks.create,

  async update(ctx: RequestContext, id: number, input: Static<typeof TaskUpdate>): Promise<unknown> {
    const stored = await findLive(ctx.scope, 'diary_tasks', id);
    if (!stored) throw notFound();
    if (ctx.user.role !== 'owner') {
      const sent = Object.keys(input).filter((field) => TASK_UPDATE_FIELDS.has(field));
      if (stored.assigned_to !== ctx.user.id || sent.some((field) => !STAFF_TASK_FIELDS.has(field))) {
        throw forbidden('diary.staff_own_tasks');
      }
    }
    if (input.done === true && stored.done_at !== null) {
      const { done: _kept, ...rest } = input;
      return tasks.update(ctx, id, rest);
    }
    return tasks.update(ctx, id, input);
  },

  async remove(ctx: RequestContext, id: number): Promise<void> {
    if (ctx.user.role !== 'owner') {
      if (!(await findLive(ctx.scope, 'diary_tasks', id))) throw notFound();
      throw forbidden('diary.staff_own_tasks');
    }
    return tasks.remove(ctx, id);
  },
};
