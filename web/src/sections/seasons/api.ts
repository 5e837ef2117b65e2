// The Seasons section's data: seasons, season templates and the records a season points to (crops,
// farms, blocks). Every query key starts with 'seasons', so an action refreshes all of it at once.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { many, one, type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type ListOf<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } }
  ? Json<R> extends (infer I)[]
    ? I
    : never
  : never;

export type Season = ListOf<'/api/crop/season'>;
export type Template = ListOf<'/api/template/season'>;
export type Crop = ListOf<'/api/crop/crop'>;
export type Farm = ListOf<'/api/farms'>;
export type Block = ListOf<'/api/blocks'>;
export type SeasonInput = NonNullable<
  paths['/api/crop/season']['post']['requestBody']
>['content']['application/json'];
export type TemplateInput = NonNullable<
  paths['/api/template/season']['post']['requestBody']
>['content']['application/json'];

/** Lists are short on a farm; one page of this size holds them all. */
const ALL = { page: 0, pageLimit: 1000 } as const;
const LIST_POLL_MS = 30_000;

export const keys = {
  all: ['seasons'] as const,
  list: ['seasons', 'list'] as const,
  season: (id: number) => ['seasons', 'season', id] as const,
  templates: ['seasons', 'templates'] as const,
  crops: ['seasons', 'crops'] as const,
  farms: ['seasons', 'farms'] as const,
  blocks: ['seasons', 'blocks'] as const,
};

/** The seasons, of one crop when cropId is given. */
export function useSeasons(cropId?: number) {
  const { api } = useSession();
  return useQuery({
    queryKey: [...keys.list, { cropId }],
    queryFn: async () =>
      many<Season>(
        await unwrap(api.GET('/api/crop/season', { params: { query: { ...ALL, crop_id: cropId } } })),
      ),
    refetchInterval: LIST_POLL_MS,
    placeholderData: keepPreviousData,
  });
}

export function useSeason(id: number) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.season(id),
    queryFn: async () =>
      one<Season>(await unwrap(api.GET('/api/crop/season/{id}', { params: { path: { id } } }))),
  });
}

export function useTemplates() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.templates,
    queryFn: async () =>
      many<Template>(await unwrap(api.GET('/api/template/season', { params: { query: { ...ALL } } }))),
  });
}

export function useCrops() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.crops,
    queryFn: async () =>
      many<Crop>(await unwrap(api.GET('/api/crop/crop', { params: { query: { ...ALL } } }))),
  });
}

export function useFarms() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.farms,
    queryFn: async () => many<Farm>(await unwrap(api.GET('/api/farms', { params: { query: { ...ALL } } }))),
  });
}

export function useBlocks() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.blocks,
    queryFn: async () => many<Block>(await unwrap(api.GET('/api/blocks', { params: { query: { ...ALL } } }))),
  });
}

/** Starts a season (id null) or changes one; answers the saved season. */
export function useSaveSeason(id: number | null) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: SeasonInput): Promise<Season> => {
      if (id === null) return one<Season>(await unwrap(api.POST('/api/crop/season', { body: input })));
      return one<Season>(
        await unwrap(
          api.PUT('/api/crop/season/{id}', {
            params: { path: { id } },
            body: input,
            headers: { prefer: 'return=representation' },
          }),
        ),
      );
    },
    onSuccess: (season) => {
      client.setQueryData(keys.season(season.id), season);
      return client.invalidateQueries({ queryKey: keys.list });
    },
  });
}

export function useDeleteSeason() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/crop/season/{id}', { params: { path: { id } } })),
    onSuccess: (_answer, id) => {
      client.removeQueries({ queryKey: keys.season(id) });
      return client.invalidateQueries({ queryKey: keys.list });
    },
  });
}

export function useCreateTemplate() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: TemplateInput): Promise<Template> =>
      one<Template>(await unwrap(api.POST('/api/template/season', { body: input }))),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.templates }),
  });
}

export function useDeleteTemplate() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/template/season/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.templates }),
  });
}
