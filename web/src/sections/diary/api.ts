// The Diary section's data: production-diary tasks, their stages (task categories), the seasons
// and the people they are assigned to. Every query key starts with 'diary', so an action refreshes
// all of it at once.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { many, one, type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type ListOf<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } }
  ? Json<R> extends (infer I)[]
    ? I
    : never
  : never;

export type Task = ListOf<'/api/diary/production'>;
export type Stage = ListOf<'/api/diary/categories'>;
export type Substage = ListOf<'/api/diary/subcategories'>;
export type SeasonChoice = ListOf<'/api/crop/season'>;
export type Person = ListOf<'/api/users'>;
export type TaskInput = NonNullable<
  paths['/api/diary/production']['post']['requestBody']
>['content']['application/json'];
export type TaskQuery = Omit<
  NonNullable<paths['/api/diary/production']['get']['parameters']['query']>,
  'page' | 'pageLimit'
>;

/** How many tasks one view shows at most (a week of a farm, or one filtered list). */
export const TASK_LIMIT = 200;
const ALL = { page: 0, pageLimit: 1000 } as const;
/** Tasks change as staff work: the views look again while they are open. */
const TASKS_POLL_MS = 20_000;

export const keys = {
  all: ['diary'] as const,
  tasks: (query: TaskQuery) => ['diary', 'tasks', query] as const,
  task: (id: number) => ['diary', 'task', id] as const,
  stages: ['diary', 'stages'] as const,
  substages: ['diary', 'substages'] as const,
  seasons: ['diary', 'seasons'] as const,
  people: ['diary', 'people'] as const,
};

export function useTasks(query: TaskQuery, { enabled = true } = {}) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.tasks(query),
    queryFn: async () =>
      many<Task>(
        await unwrap(
          api.GET('/api/diary/production', {
            params: { query: { ...query, page: 0, pageLimit: TASK_LIMIT } },
          }),
        ),
      ),
    enabled,
    refetchInterval: TASKS_POLL_MS,
    // A change of week or filter keeps the last answer on screen until the new one arrives.
    placeholderData: keepPreviousData,
  });
}

export function useTask(id: number) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.task(id),
    queryFn: async () =>
      one<Task>(await unwrap(api.GET('/api/diary/production/{id}', { params: { path: { id } } }))),
  });
}

export function useStages() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.stages,
    queryFn: async () =>
      many<Stage>(await unwrap(api.GET('/api/diary/categories', { params: { query: { ...ALL } } }))),
  });
}

/** Sub-stages (sub-categories) of every stage. */
export function useSubstages() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.substages,
    queryFn: async () =>
      many<Substage>(await unwrap(api.GET('/api/diary/subcategories', { params: { query: { ...ALL } } }))),
  });
}

export function useSeasonChoices() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.seasons,
    queryFn: async () =>
      many<SeasonChoice>(await unwrap(api.GET('/api/crop/season', { params: { query: { ...ALL } } }))),
  });
}

/** The farm's people, to assign tasks to (owners only: staff never ask). */
export function usePeople({ enabled }: { enabled: boolean }) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.people,
    queryFn: async () => many<Person>(await unwrap(api.GET('/api/users', { params: { query: { ...ALL } } }))),
    enabled,
  });
}

/** Adds a task (id null) or changes one with only the fields given; answers the saved task. */
export function useSaveTask(id: number | null) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: Partial<TaskInput>): Promise<Task> => {
      if (id === null) {
        return one<Task>(await unwrap(api.POST('/api/diary/production', { body: input as TaskInput })));
      }
      return one<Task>(
        await unwrap(
          api.PUT('/api/diary/production/{id}', {
            params: { path: { id } },
            body: input,
            headers: { prefer: 'return=representation' },
          }),
        ),
      );
    },
    onSuccess: (task) => {
      client.setQueryData(keys.task(task.id), task);
      return client.invalidateQueries({ queryKey: ['diary', 'tasks'] });
    },
  });
}

/** Marks a task done or not done. */
export function useMarkDone() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, done }: { id: number; done: boolean }): Promise<Task> =>
      one<Task>(
        await unwrap(
          api.PUT('/api/diary/production/{id}', {
            params: { path: { id } },
            body: { done },
            headers: { prefer: 'return=representation' },
          }),
        ),
      ),
    onSuccess: (task) => {
      client.setQueryData(keys.task(task.id), task);
      return client.invalidateQueries({ queryKey: ['diary', 'tasks'] });
    },
  });
}

export function useDeleteTask() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE('/api/diary/production/{id}', { params: { path: { id } } })),
    onSuccess: (_answer, id) => {
      client.removeQueries({ queryKey: keys.task(id) });
      return client.invalidateQueries({ queryKey: ['diary', 'tasks'] });
    },
  });
}

export function useAddStage() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (name: string): Promise<Stage> =>
      one<Stage>(await unwrap(api.POST('/api/diary/categories', { body: { name } }))),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.stages }),
  });
}

export function useDeleteStage() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE('/api/diary/categories/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.all }),
  });
}

export function useAddSubstage() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { name: string; category_task_id: number }): Promise<Substage> =>
      one<Substage>(await unwrap(api.POST('/api/diary/subcategories', { body: input }))),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.substages }),
  });
}

export function useDeleteSubstage() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE('/api/diary/subcategories/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.all }),
  });
}
