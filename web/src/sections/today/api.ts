// The Today page's data: GET /api/today in the browser's time zone, polled so the numbers follow
// what happens on the farm without a reload, and the two actions the page offers (acknowledge an
// alert, confirm a harvest batch). Every key starts with 'today'; an action refreshes all of it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type TodayAnswer = Json<paths['/api/today']['get']['responses'][200]>;
export type TodayAlert = TodayAnswer['alerts']['items'][number];
export type TodayDevice = TodayAnswer['offline_devices']['items'][number];
export type TodayTask = TodayAnswer['tasks']['today']['items'][number];
export type TodayBatch = TodayAnswer['harvest_batches']['items'][number];
export type TodayWebhook = NonNullable<TodayAnswer['paused_webhooks']>['items'][number];

/** How often the page asks again while it is open. */
export const TODAY_POLL_MS = 15_000;
/** Items per part: enough for a morning's look, the rest is one link away. */
const ITEMS = 10;

export const keys = {
  all: ['today'] as const,
  page: (tz: string) => ['today', 'page', tz] as const,
};

/** The browser's IANA time zone: it decides which day is "today". */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function useToday() {
  const { api } = useSession();
  const tz = browserTimeZone();
  return useQuery({
    queryKey: keys.page(tz),
    queryFn: () => unwrap(api.GET('/api/today', { params: { query: { tz, limit: ITEMS } } })),
    refetchInterval: TODAY_POLL_MS,
  });
}

const at = (id: number) => ({ params: { path: { id } } });

function useTodayAction<A>(run: (args: A) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: () => client.invalidateQueries({ queryKey: keys.all }),
  });
}

export function useAcknowledgeAlert() {
  const { api } = useSession();
  return useTodayAction((id: number) => unwrap(api.POST('/api/iot/alerts/{id}/acknowledge', at(id))));
}

export function useConfirmBatch() {
  const { api } = useSession();
  return useTodayAction((id: number) => unwrap(api.POST('/api/harvest/batches/{id}/confirm', at(id))));
}

/** A diary time ("2026-06-15 08:00:00", UTC) as ISO 8601, for format.ts. */
export function diaryTimeIso(value: string | null): string | null {
  if (!value) return null;
  return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
}
