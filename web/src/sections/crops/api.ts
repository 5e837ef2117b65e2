// The Crops section's data: crops and livestock, varieties (crop types) and product groups
// (product categories), typed from the generated API schema. Every query key starts with 'crops',
// so a change refreshes the whole section.
//
// Crops are searched and filtered by the API (search[name], status). Varieties and groups are the
// farm's reference lists (tens of records): they are read whole, once, because the crop form's
// choices and the crop list's names need all of them anyway; their search and filter run on that
// one copy.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Api, many, one, type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Body<T> = T extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;

export type CropListItem = Json<paths['/api/crop/crop']['get']['responses'][200]>[number];
export type Crop = Json<paths['/api/crop/crop/{id}']['get']['responses'][200]>[number];
export type CropInput = Body<paths['/api/crop/crop']['post']>;
export type CropType = Json<paths['/api/croptype/croptype']['get']['responses'][200]>[number];
export type CropTypeInput = Body<paths['/api/croptype/croptype']['post']>;
export type Category = Json<paths['/api/productcategory/productcategory']['get']['responses'][200]>[number];
export type CategoryInput = Body<paths['/api/productcategory/productcategory']['post']>;

export type StatusFilter = 'all' | 'active' | 'inactive';

/** The most crops one page of the list shows; a search finds the others. */
export const CROPS_PAGE = 200;
/** Reference lists are read whole (the API's largest page). */
const REFERENCE_PAGE = 1000;
/** Lists look again now and then, so another person's changes show up without a reload. */
const POLL_MS = 30_000;

export const keys = {
  all: ['crops'] as const,
  crops: (search: string, status: StatusFilter, group: number | null) =>
    ['crops', 'crops', { search, status, group }] as const,
  crop: (id: string) => ['crops', 'crop', id] as const,
  types: ['crops', 'types'] as const,
  categories: ['crops', 'categories'] as const,
};

const at = (id: string) => ({ params: { path: { id: Number(id) } } });
const representation = { headers: { prefer: 'return=representation' } };

export interface CropPage {
  items: CropListItem[];
  /** X-Total-Count: null when the API did not count (a very broad filter). */
  total: number | null;
}

export function useCrops(search: string, status: StatusFilter, group: number | null) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.crops(search, status, group),
    queryFn: async (): Promise<CropPage> => {
      const query: Record<string, unknown> = { page: 0, pageLimit: CROPS_PAGE };
      if (search) query.search = { name: search };
      if (status !== 'all') query.status = status === 'active' ? 1 : 0;
      if (group !== null) query.category_id = group;
      const result = await api.GET('/api/crop/crop', {
        params: { query: query as { page: number; pageLimit: number } },
      });
      const items = many<CropListItem>(await unwrap(Promise.resolve(result)));
      const count = result.response.headers.get('x-total-count');
      return { items, total: count === null ? null : Number(count) };
    },
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}

/** A crop's list picture (`image`, which its detail lacks), from a list already on hand. */
export function useListedImage(id: string): string {
  const client = useQueryClient();
  for (const [, page] of client.getQueriesData<CropPage>({ queryKey: ['crops', 'crops'] })) {
    const found = page?.items.find((item) => String(item.id) === id);
    if (found) return found.image;
  }
  return '';
}

export function useCrop(id: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.crop(id),
    queryFn: async () => one<Crop>(await unwrap(api.GET('/api/crop/crop/{id}', at(id)))),
  });
}

export function useCropTypes() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.types,
    queryFn: async () =>
      many<CropType>(
        await unwrap(
          api.GET('/api/croptype/croptype', { params: { query: { page: 0, pageLimit: REFERENCE_PAGE } } }),
        ),
      ),
    refetchInterval: POLL_MS,
  });
}

export function useCategories() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.categories,
    queryFn: async () =>
      many<Category>(
        await unwrap(
          api.GET('/api/productcategory/productcategory', {
            params: { query: { page: 0, pageLimit: REFERENCE_PAGE } },
          }),
        ),
      ),
    refetchInterval: POLL_MS,
  });
}

/**
 * A change, then the whole section is asked again before the form goes back to its list (lists
 * not on screen too), so the list never shows what was there before the change.
 */
function useChange<A, R>(run: (api: Api, args: A) => Promise<R>) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: A) => run(api, args),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.all, refetchType: 'all' }),
  });
}

export const useSaveCrop = (id: string | null) =>
  useChange(async (api, input: CropInput) =>
    id === null
      ? one<Crop>(await unwrap(api.POST('/api/crop/crop', { body: input })))
      : one<Crop>(
          await unwrap(api.PUT('/api/crop/crop/{id}', { ...at(id), ...representation, body: input })),
        ),
  );

export const useSaveCropType = (id: string | null) =>
  useChange(async (api, input: CropTypeInput) =>
    id === null
      ? one<CropType>(await unwrap(api.POST('/api/croptype/croptype', { body: input })))
      : one<CropType>(
          await unwrap(api.PUT('/api/croptype/croptype/{id}', { ...at(id), ...representation, body: input })),
        ),
  );

export const useSaveCategory = (id: string | null) =>
  useChange(async (api, input: CategoryInput) =>
    id === null
      ? one<Category>(await unwrap(api.POST('/api/productcategory/productcategory', { body: input })))
      : one<Category>(
          await unwrap(
            api.PUT('/api/productcategory/productcategory/{id}', {
              ...at(id),
              ...representation,
              body: input,
            }),
          ),
        ),
  );

export type RecordKind = 'crop' | 'type' | 'category';

export function useDeleteRecord() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, id }: { kind: RecordKind; id: number }) => {
      const path = { params: { path: { id } } };
      if (kind === 'crop') return unwrap(api.DELETE('/api/crop/crop/{id}', path));
      if (kind === 'type') return unwrap(api.DELETE('/api/croptype/croptype/{id}', path));
      return unwrap(api.DELETE('/api/productcategory/productcategory/{id}', path));
    },
    onSuccess: (_answer, { kind, id }) => {
      if (kind === 'crop') client.removeQueries({ queryKey: keys.crop(String(id)) });
      return client.invalidateQueries({ queryKey: keys.all });
    },
  });
}

/** The first picture of a crop's `images` (a JSON array serialized as a string). */
export function firstImage(images: string | null | undefined): string {
  if (!images) return '';
  try {
    const list: unknown = JSON.parse(images);
    if (Array.isArray(list)) return typeof list[0] === 'string' ? list[0] : '';
  } catch {
    // Not JSON: the text is one address.
  }
  return images;
}

/** Every picture of a crop's `images`. */
export function imageList(images: string | null | undefined): string[] {
  if (!images) return [];
  try {
    const list: unknown = JSON.parse(images);
    if (Array.isArray(list)) return list.filter((v): v is string => typeof v === 'string');
  } catch {
    // Not JSON: the text is one address.
  }
  return [images];
}
