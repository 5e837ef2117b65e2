// The Fields section's data: farms and the blocks, zones and parcels inside them. Types come from
// the generated API schema; every query key starts with 'fields', so an action refreshes all of it.
// Lists are read a page at a time (page from 0, pageLimit); X-Total-Count and Link say how many
// there are and whether another page follows.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { one, type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Body<T> = T extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export type Farm = Json<paths['/api/farms']['get']['responses'][200]>[number];
export type Block = Json<paths['/api/blocks']['get']['responses'][200]>[number];
export type Zone = Json<paths['/api/zones']['get']['responses'][200]>[number];
export type Parcel = Json<paths['/api/parcels']['get']['responses'][200]>[number];

export type FarmInput = Body<paths['/api/farms']['post']>;
export type BlockInput = Body<paths['/api/blocks']['post']>;
export type ParcelInput = Body<paths['/api/parcels']['post']>;

/** The three kinds of place inside a farm, as they appear in the app's paths. */
export const KINDS = ['blocks', 'zones', 'parcels'] as const;
export type Kind = (typeof KINDS)[number];
export const isKind = (value: unknown): value is Kind => KINDS.includes(value as Kind);

export type Place<K extends Kind> = K extends 'parcels' ? Parcel : Block;

/** Farms and parcels are read 30 at a time ("Show more"); the pickers read up to 1,000 at once. */
const PAGE_SIZE = 30;
const ALL = 1000;
/** Others may change the records too: lists look again every 30 seconds while open. */
const POLL_MS = 30_000;

export const keys = {
  all: ['fields'] as const,
  farms: ['fields', 'farms'] as const,
  farmOptions: ['fields', 'farms', 'options'] as const,
  farm: (id: number) => ['fields', 'farm', id] as const,
  places: (kind: Kind, farmId: number) => ['fields', kind, farmId] as const,
  place: (kind: Kind, id: number) => ['fields', kind, 'one', id] as const,
};

export interface Page<T> {
  items: T[];
  /** Matching records in all, when the API counted them. */
  total: number | undefined;
  hasNext: boolean;
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** A page of a list with the paging headers' total and whether a next page follows. */
async function pageOf<T>(call: Promise<FetchResult<unknown>>): Promise<Page<T>> {
  const data = await unwrap(call);
  // unwrap answered, so the call has settled with an answer.
  const { response } = await call;
  const count = response.headers.get('x-total-count');
  return {
    items: Array.isArray(data) ? (data as T[]) : [],
    total: count === null ? undefined : Number(count),
    hasNext: /rel="next"/.test(response.headers.get('link') ?? ''),
  };
}

function listPath(kind: Kind) {
  return `/api/${kind}` as '/api/blocks';
}

function detailPath(kind: Kind) {
  return `/api/${kind}/{id}` as '/api/blocks/{id}';
}

/** Farms, newest first, a page at a time. */
export function useFarms() {
  const { api } = useSession();
  return useInfiniteQuery({
    queryKey: keys.farms,
    initialPageParam: 0,
    queryFn: ({ pageParam }) =>
      pageOf<Farm>(api.GET('/api/farms', { params: { query: { page: pageParam, pageLimit: PAGE_SIZE } } })),
    getNextPageParam: (last, _pages, pageParam) => (last.hasNext ? pageParam + 1 : undefined),
    refetchInterval: (query) => (query.state.error ? false : POLL_MS),
  });
}

/** Every farm (up to 1,000), for the farm picker of the forms. */
export function useFarmOptions() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.farmOptions,
    queryFn: () => pageOf<Farm>(api.GET('/api/farms', { params: { query: { page: 0, pageLimit: ALL } } })),
  });
}

export function useFarm(id: number, { active = true } = {}) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.farm(id),
    queryFn: async () => one<Farm>(await unwrap(api.GET('/api/farms/{id}', { params: { path: { id } } }))),
    enabled: active && Number.isInteger(id) && id > 0,
    refetchInterval: (query) => (query.state.error ? false : POLL_MS),
  });
}

/**
 * The blocks, zones or parcels of a farm. Blocks and zones are few: one read takes up to 1,000
 * (they also fill the pickers and name a parcel's block and zone); parcels come a page at a time.
 */
export function usePlaces<K extends Kind>(kind: K, farmId: number, { enabled = true } = {}) {
  const { api } = useSession();
  const size = kind === 'parcels' ? PAGE_SIZE : ALL;
  return useInfiniteQuery({
    queryKey: keys.places(kind, farmId),
    initialPageParam: 0,
    queryFn: ({ pageParam }) =>
      pageOf<Place<K>>(
        api.GET(listPath(kind), {
          params: { query: { farm_id: farmId, page: pageParam, pageLimit: size } },
        }),
      ),
    getNextPageParam: (last, _pages, pageParam) => (last.hasNext ? pageParam + 1 : undefined),
    enabled: enabled && Number.isInteger(farmId) && farmId > 0,
    refetchInterval: (query) => (query.state.error ? false : POLL_MS),
  });
}

export function usePlace<K extends Kind>(kind: K, id: number) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.place(kind, id),
    queryFn: async () => one<Place<K>>(await unwrap(api.GET(detailPath(kind), { params: { path: { id } } }))),
    enabled: Number.isInteger(id) && id > 0,
  });
}

/** Adds a farm (id null) or changes one; answers the saved farm. */
export function useSaveFarm(id: number | null) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: FarmInput): Promise<Farm> => {
      if (id === null) return one<Farm>(await unwrap(api.POST('/api/farms', { body: input })));
      return one<Farm>(
        await unwrap(
          api.PUT('/api/farms/{id}', {
            params: { path: { id }, header: { prefer: 'return=representation' } },
            body: input,
          }),
        ),
      );
    },
    onSuccess: async (farm) => {
      client.setQueryData(keys.farm(farm.id), farm);
      await client.invalidateQueries({ queryKey: keys.farms });
    },
  });
}

/** Adds a block, zone or parcel (id null) or changes one; answers the saved record. */
export function useSavePlace<K extends Kind>(kind: K, id: number | null) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: K extends 'parcels' ? ParcelInput : BlockInput): Promise<Place<K>> => {
      const body = input as BlockInput;
      if (id === null) return one<Place<K>>(await unwrap(api.POST(listPath(kind), { body })));
      return one<Place<K>>(
        await unwrap(
          api.PUT(detailPath(kind), {
            params: { path: { id }, header: { prefer: 'return=representation' } },
            body,
          }),
        ),
      );
    },
    onSuccess: async (saved) => {
      client.setQueryData(keys.place(kind, saved.id), saved);
      // A place may have moved to another farm: every farm's lists of this kind are refreshed.
      await client.invalidateQueries({ queryKey: ['fields', kind] });
    },
  });
}

export function useDeleteFarm() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/farms/{id}', { params: { path: { id } } })),
    // The farm's page stops asking first, so no call goes to the removed farm.
    onMutate: (id: number) => client.cancelQueries({ queryKey: keys.farm(id) }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.farms }),
  });
}

/** Forgets a removed farm's data once its page is closed. */
export function useForgetFarm() {
  const client = useQueryClient();
  return (id: number) => client.removeQueries({ queryKey: keys.farm(id) });
}

export function useDeletePlace(kind: Kind) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE(detailPath(kind), { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['fields', kind] }),
  });
}

/** The items of every page read so far, and the total when the API counted them. */
export function flatten<T>(pages: { pages: Page<T>[] } | undefined): {
  items: T[];
  total: number | undefined;
} {
  if (!pages) return { items: [], total: undefined };
  return { items: pages.pages.flatMap((page) => page.items), total: pages.pages[0]?.total };
}
