// The task ↔ sub-category join table.
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
  return selectScoped(scope, 'diary_task_subcategories')
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
    .where('diary_task_subcategories.task_id', 'in', taskIds)
    .orderBy('diary_task_subcategories.sub_cate_id')
    .execute();
}
