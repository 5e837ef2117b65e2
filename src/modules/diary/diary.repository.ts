// The task ↔ sub-category join table, and the date-range filter of the task list.
import { type SqlBool, sql } from 'kysely';
import { columnFilter, keyedFilter } from '../../platform/db/keyed-filters.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { type Filter, idListOf, idListValue, rangeFilter } from '../../platform/db/records.js';
import { deleteScoped, insertScoped, type Scope, selectScoped } from '../../platform/db/scope.js';

export async function replaceTaskSubcategories(
  scope: Scope,
  taskId: number,
  subCateIds: number[],
): Promise<void> {
  await deleteScoped(scope, 'diary_task_subcategories').where('task_id', '=', taskId).execute();
  if (subCateIds.length === 0) return;
  await insertScoped(
    scope,
    'diary_task_subcategories',
    subCateIds.map((id) => ({ task_id: taskId, sub_cate_id: id })),
  ).execute();
}

/** Sub-categories of the given tasks, with names, in the order they were added. */
export async function findTaskSubcategories(
  scope: Scope,
  taskIds: number[],
): Promise<{ task_id: number; sub_cate_id: number; name: string }[]> {
  if (taskIds.length === 0) return [];
  return subcategoriesQuery.all(scope.db, { tenantId: scope.tenantId, ids: idListValue(scope.db, taskIds) });
}

const subcategoriesQuery = preparedQuery((db, p: { tenantId: number; ids: unknown }) =>
  selectScoped({ db, tenantId: p.tenantId }, 'diary_task_subcategories')
    .innerJoin('diary_subcategories', (join) =>
      join
        .onRef('diary_subcategories.tenant_id', '=', 'diary_task_subcategories.tenant_id')
        .onRef('diary_subcategories.id', '=', 'diary_task_subcategories.sub_cate_id'),
    )
    .select([
      'diary_task_subcategories.task_id',
      'diary_task_subcategories.sub_cate_id',
      'diary_subcategories.name',
    ])
    .where(sql<SqlBool>`diary_task_subcategories.task_id in ${idListOf(db, p.ids)}`)
    .orderBy('diary_task_subcategories.sub_cate_id'),
);

/**
 * Tasks that overlap a date range; a task without an end lasts an instant (its start). An
 * overlapping task starts at most the tenant's widest task span before `from`, which bounds the
 * start_at index scan from below: the scan covers the range, not every older task.
 */
export function overlapsRange(scope: Scope, range: { from?: number; to?: number }): Filter<'diary_tasks'>[] {
  const { from, to } = range;
  const filters: Filter<'diary_tasks'>[] = [];
  if (to !== undefined) filters.push(columnFilter(scope, 'diary_tasks', 'start_at', '<=', to));
  if (from !== undefined) {
    const lowerBound = keyedFilter<'diary_tasks'>(
      scope,
      'task starts after widest span',
      [from],
      (eb, [v], s) => {
        const widestSpan = selectScoped(s, 'task_span_limits').select('widest_span');
        return eb('diary_tasks.start_at', '>=', sql<number>`${v} - coalesce((${widestSpan}), 0)`);
      },
    );
    // Bounded on both sides, the range is found through the start_at index and its tasks sorted.
    filters.push(to === undefined ? lowerBound : rangeFilter(lowerBound));
    filters.push(
      keyedFilter<'diary_tasks'>(scope, 'task ends after', [from], (eb, [v]) =>
        eb.or([
          eb('diary_tasks.end_at', '>=', v as number),
          eb.and([eb('diary_tasks.end_at', 'is', null), eb('diary_tasks.start_at', '>=', v as number)]),
        ]),
      ),
    );
  }
  return filters;
}
