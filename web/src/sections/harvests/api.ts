// The Harvests section's data: batches (declared by anyone, confirmed by owners), the totals over a
// period, and the names batches point to (parcels, crop types, people). Every query key starts
// with 'harvests', so an action refreshes all of it at once.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { many, one, type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type Batch = Json<paths['/api/harvest/batches']['get']['responses'][200]>[number];
export type BatchStatus = Batch['status'];
export type BatchInput = NonNullable<
  paths['/api/harvest/batches']['post']['requestBody']
>['content']['application/json'];
export type Total = Json<paths['/api/harvest/totals']['get']['responses'][200]>[number];
export type Parcel = Json<paths['/api/parcels']['get']['responses'][200]>[number];
export type CropType = Json<paths['/api/croptype/croptype']['get']['responses'][200]>[number];
type Person = Json<paths['/api/users']['get']['responses'][200]>[number];

/** Batches and totals look again this often while the page is open (others declare meanwhile). */
const POLL_MS = 15_000;
/** Parcels, crop types and people change rarely. */
const NAMES_STALE_MS = 60_000;
/** The most a list answers in one page. */
const ALL = { page: 0, pageLimit: 1000 };

export const keys = {
  all: ['harvests'] as const,
  batches: (status: BatchStatus | 'all', limit: number) => ['harvests', 'batches', status, limit] as const,
  totals: (by: 'crop_type' | 'parcel', from: string | undefined, to: string | undefined) =>
    ['harvests', 'totals', by, from ?? '', to ?? ''] as const,
  parcels: ['harvests', 'parcels'] as const,
  cropTypes: ['harvests', 'crop-types'] as const,
  people: ['harvests', 'people'] as const,
};

export function useBatches(status: BatchStatus | 'all', limit: number) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.batches(status, limit),
    queryFn: async () =>
      many<Batch>(
        await unwrap(
          api.GET('/api/harvest/batches', {
            params: { query: { page: 0, pageLimit: limit, ...(status === 'all' ? {} : { status }) } },
          }),
        ),
      ),
    refetchInterval: POLL_MS,
    // While "Show more" loads, the batches already shown stay.
    placeholderData: (previous) => previous,
  });
}

export function useTotals(by: 'crop_type' | 'parcel', from: string | undefined, to: string | undefined) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.totals(by, from, to),
    queryFn: async () =>
      many<Total>(
        await unwrap(
          api.GET('/api/harvest/totals', {
            params: { query: { by, ...(from ? { from } : {}), ...(to ? { to } : {}) } },
          }),
        ),
      ),
    refetchInterval: POLL_MS,
  });
}

export function useParcels() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.parcels,
    queryFn: async () => many<Parcel>(await unwrap(api.GET('/api/parcels', { params: { query: ALL } }))),
    staleTime: NAMES_STALE_MS,
  });
}

export function useCropTypes() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.cropTypes,
    queryFn: async () =>
      many<CropType>(await unwrap(api.GET('/api/croptype/croptype', { params: { query: ALL } }))),
    staleTime: NAMES_STALE_MS,
  });
}

export function usePeople() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.people,
    queryFn: async () => many<Person>(await unwrap(api.GET('/api/users', { params: { query: ALL } }))),
    staleTime: NAMES_STALE_MS,
  });
}

/** Names by id for the list: parcels, crop types and people (each undefined while loading). */
export function useNames() {
  const parcels = useParcels();
  const cropTypes = useCropTypes();
  const people = usePeople();
  const byId = <T extends { id: number }>(rows: T[] | undefined) =>
    new Map((rows ?? []).map((r) => [r.id, r]));
  return {
    parcel: (id: number) => byId(parcels.data).get(id),
    cropType: (id: number) => byId(cropTypes.data).get(id),
    person: (id: number | null) => (id === null ? undefined : byId(people.data).get(id)),
  };
}

export function useDeclareBatch() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    // What was typed goes as it is: the API says what is missing or wrong, field by field.
    mutationFn: async (input: Partial<BatchInput>) =>
      one<Batch>(await unwrap(api.POST('/api/harvest/batches', { body: input as BatchInput }))),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.all }),
  });
}

export function useConfirmBatch() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) =>
      one<Batch>(await unwrap(api.POST('/api/harvest/batches/{id}/confirm', { params: { path: { id } } }))),
    // Confirmed or refused (someone else confirmed it first), the list and totals are asked again.
    onSettled: () => client.invalidateQueries({ queryKey: keys.all }),
  });
}
