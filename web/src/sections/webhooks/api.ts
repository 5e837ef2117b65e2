// The Webhooks section's data: types from the generated API schema, queries (cached, polled) and
// the actions. Every query key starts with 'webhooks', so an action refreshes all of it at once.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearch } from '@tanstack/react-router';
import { type Api, many, one, type paths, unwrap } from '../../api/client';
import { useI18n } from '../../app/i18n';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

type ListItem = Json<paths['/api/webhooks']['get']['responses'][200]>[number];
export type Delivery = Json<paths['/api/webhooks/{id}/deliveries']['get']['responses'][200]>[number];
export type DeliveryStatus = Delivery['status'];
export type Attempt = Delivery['attempts'][number];
export type EndpointInput = NonNullable<
  paths['/api/webhooks']['post']['requestBody']
>['content']['application/json'];
export type EventKind = EndpointInput['events'][number];

/** The newest delivery of an endpoint, as GET /api/webhooks carries it (when the server has `last_delivery`). */
export type LastDelivery = Pick<Delivery, 'id' | 'event_type' | 'status' | 'created_at'>;

export type Endpoint = ListItem & {
  /** Only in the answers of create and rotate-secret. */
  secret?: string;
  /** Undefined when the server does not send it (then the list asks the delivery log). */
  last_delivery?: LastDelivery | null;
};

export const EVENT_KINDS = [
  'iot.alert.raised',
  'iot.alert.resolved',
  'iot.device.offline',
  'iot.device.online',
  'harvest.batch.created',
  'webhook.endpoint.paused',
] as const;
export const ALL_EVENTS = '*';
/** What a new endpoint selects: the farm's events; the note about another address's pause is asked for. */
export const DEFAULT_EVENT_KINDS = EVENT_KINDS.filter((kind) => kind !== 'webhook.endpoint.paused');
/** The kind of the plain test message (POST …/test without an event kind). */
export const TEST_MESSAGE_KIND = 'webhook.test';

/** How often the list looks again while it is open. */
const LIST_POLL_MS = 10_000;
/** The log: quickly while something is about to happen, slowly otherwise. */
const FAST_POLL_MS = 2_000;
const SLOW_POLL_MS = 5_000;
/** After an action the log is polled quickly for a while, so its effects show up. */
const FAST_WINDOW_MS = 20_000;

export const keys = {
  all: ['webhooks'] as const,
  list: ['webhooks', 'list'] as const,
  endpoint: (id: string) => ['webhooks', 'endpoint', id] as const,
  /** The log unfiltered (shared with the list's last delivery), or narrowed by the owner's choices. */
  deliveries: (id: string, filters: DeliveryFilters = {}) =>
    hasFilters(filters)
      ? (['webhooks', 'endpoint', id, 'deliveries', filters] as const)
      : (['webhooks', 'endpoint', id, 'deliveries'] as const),
};

const at = (id: string) => ({ params: { path: { id } } });

async function listDeliveries(api: Api, id: string, filters: DeliveryFilters = {}): Promise<Delivery[]> {
  const query = deliveryQuery(filters);
  return many<Delivery>(
    await unwrap(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query } })),
  );
}

export function useEndpoints() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.list,
    queryFn: async () => many<Endpoint>(await unwrap(api.GET('/api/webhooks'))),
    refetchInterval: LIST_POLL_MS,
  });
}

/**
 * The newest delivery of each endpoint: the list's `last_delivery` when the server sends it,
 * else the first row of the endpoint's delivery log (shared with its page's cache).
 */
export function useLastDelivery(endpoint: Endpoint): { last: LastDelivery | null | undefined } {
  const { api } = useSession();
  const needsLog = endpoint.last_delivery === undefined;
  const log = useQuery({
    queryKey: keys.deliveries(endpoint.id),
    queryFn: () => listDeliveries(api, endpoint.id),
    enabled: needsLog,
    refetchInterval: needsLog ? LIST_POLL_MS : false,
  });
  if (!needsLog) return { last: endpoint.last_delivery };
  if (log.isError) return { last: null };
  return { last: log.data ? (log.data[0] ?? null) : undefined };
}

let fastUntil = 0;

function pollDelay(deliveries: Delivery[] | undefined, now = Date.now()): number {
  if (now < fastUntil) return FAST_POLL_MS;
  for (const delivery of deliveries ?? []) {
    if (delivery.status === 'pending') return FAST_POLL_MS;
    if (delivery.status === 'retrying' && delivery.next_attempt_at) {
      if (new Date(delivery.next_attempt_at).getTime() - now < 60_000) return FAST_POLL_MS;
    }
  }
  return SLOW_POLL_MS;
}

/**
 * An endpoint and its delivery log, polled; `active: false` stops asking (e.g. while it is deleted).
 * The log is narrowed by the filters in the page's address (see useLogFilters).
 */
export function useEndpoint(id: string, { active = true, withDeliveries = true } = {}) {
  const { api } = useSession();
  const filters = useLogFilters();
  const deliveries = useQuery({
    queryKey: keys.deliveries(id, filters),
    queryFn: () => listDeliveries(api, id, filters),
    enabled: active && withDeliveries,
    refetchInterval: (query) => (query.state.error ? false : pollDelay(query.state.data)),
  });
  const endpoint = useQuery({
    queryKey: keys.endpoint(id),
    queryFn: async () => one<Endpoint>(await unwrap(api.GET('/api/webhooks/{id}', at(id)))),
    enabled: active,
    refetchInterval: (query) => (query.state.error || !withDeliveries ? false : pollDelay(deliveries.data)),
  });
  return { endpoint, deliveries };
}

/** An action on the endpoint; afterwards the section's data is refreshed and polled quickly. */
function useEndpointAction<A, R>(run: (api: Api, args: A) => Promise<R>) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: A) => run(api, args),
    onSuccess: async () => {
      fastUntil = Date.now() + FAST_WINDOW_MS;
      await client.invalidateQueries({ queryKey: keys.all });
    },
  });
}

export const useSendTest = () =>
  useEndpointAction((api, { id, eventType }: { id: string; eventType: string }) =>
    unwrap(
      api.POST('/api/webhooks/{id}/test', {
        ...at(id),
        // No body for the plain test message, as before; any other kind sends its example.
        ...(eventType === TEST_MESSAGE_KIND ? {} : { body: { event_type: eventType } }),
      }),
    ),
  );

export const useRedeliver = () =>
  useEndpointAction((api, { id, deliveryId }: { id: string; deliveryId: string }) =>
    unwrap(
      api.POST('/api/webhooks/{id}/deliveries/{delivery_id}/redeliver', {
        params: { path: { id, delivery_id: deliveryId } },
      }),
    ),
  );

/** How long the previous secret keeps signing after a rotation; undefined: the server's default (24 hours). */
export const useRotateSecret = () =>
  useEndpointAction(async (api, { id, overlapSeconds }: { id: string; overlapSeconds?: number }) => {
    // Always a JSON body, `{}` at least.
    const body = overlapSeconds === undefined ? {} : { expire_previous_in_seconds: overlapSeconds };
    return one<Endpoint>(await unwrap(api.POST('/api/webhooks/{id}/rotate-secret', { ...at(id), body })));
  });

export const useEnable = () =>
  useEndpointAction((api, id: string) => unwrap(api.POST('/api/webhooks/{id}/enable', at(id))));

/** The owner pauses sending: events are held, and sent when the endpoint is enabled again. */
export const usePause = () =>
  useEndpointAction((api, id: string) => unwrap(api.POST('/api/webhooks/{id}/pause', at(id))));

/** Sends again every delivery that failed in [since, until] (ISO 8601); answers how many were queued. */
export const useRecover = () =>
  useEndpointAction(
    async (api, { id, since, until }: { id: string; since: string; until?: string | undefined }) => {
      const body = until === undefined ? { since } : { since, until };
      const answer = await unwrap(api.POST('/api/webhooks/{id}/recover', { ...at(id), body }));
      return one<{ count: number }>(answer).count;
    },
  );

/** Forgets a removed endpoint's data, once its page is closed. */
export function useForgetEndpoint() {
  const client = useQueryClient();
  return (id: string) => client.removeQueries({ queryKey: keys.endpoint(id) });
}

export function useDeleteEndpoint() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/webhooks/{id}', at(id))),
    // Its page stops asking first (it may be polling), so no call goes to the removed endpoint.
    onMutate: (id: string) => client.cancelQueries({ queryKey: keys.endpoint(id) }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.list }),
  });
}

export function useSaveEndpoint(id: string | null) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: EndpointInput): Promise<Endpoint> => {
      if (id === null) return one<Endpoint>(await unwrap(api.POST('/api/webhooks', { body: input })));
      await unwrap(api.PUT('/api/webhooks/{id}', { ...at(id), body: input }));
      return one<Endpoint>(await unwrap(api.GET('/api/webhooks/{id}', at(id))));
    },
    onSuccess: (endpoint) => {
      client.setQueryData(keys.endpoint(endpoint.id), { ...endpoint, secret: undefined });
      return client.invalidateQueries({ queryKey: keys.list });
    },
  });
}

// Insight: the log's filters, an endpoint's stats and the event catalogue.

/** The owner's choices narrowing the delivery log; dates are days (YYYY-MM-DD) in the browser's time zone. */
export interface DeliveryFilters {
  status?: DeliveryStatus;
  event?: string;
  since?: string;
  until?: string;
}

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = [
  'succeeded',
  'failed',
  'retrying',
  'pending',
  'held',
];

export function hasFilters(filters: DeliveryFilters): boolean {
  return Object.values(filters).some((value) => value !== undefined);
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The filters in a page address's search part; anything unknown is left out. */
export function readLogFilters(search: Record<string, unknown>): DeliveryFilters {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const day = (value: unknown) => {
    const found = text(value);
    return found && DAY.test(found) ? found : undefined;
  };
  const status = text(search.status);
  const filters: DeliveryFilters = {
    status: DELIVERY_STATUSES.find((s) => s === status),
    event: text(search.event),
    since: day(search.since),
    until: day(search.until),
  };
  for (const key of Object.keys(filters) as (keyof DeliveryFilters)[]) {
    if (filters[key] === undefined) delete filters[key];
  }
  return filters;
}

/** The log's filters of the page being shown (its address holds them, so reload and Back keep them). */
export function useLogFilters(): DeliveryFilters {
  return readLogFilters(useSearch({ strict: false }) as Record<string, unknown>);
}

/** Midnight starting a day, or ending it (the last millisecond), in the browser's time zone, as ISO 8601. */
function dayEdge(day: string, edge: 'start' | 'end'): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const start = new Date(y, m - 1, d);
  return edge === 'start'
    ? start.toISOString()
    : new Date(new Date(y, m - 1, d + 1).getTime() - 1).toISOString();
}

/** GET /api/webhooks/{id}/deliveries's query for these filters: a `since` day counts from its start, `until` to its end. */
function deliveryQuery(filters: DeliveryFilters) {
  return {
    status: filters.status,
    event_type: filters.event,
    since: filters.since ? dayEdge(filters.since, 'start') : undefined,
    until: filters.until ? dayEdge(filters.until, 'end') : undefined,
  };
}

export type StatsWindow = '24h' | '7d';
export type EndpointStats = Json<paths['/api/webhooks/{id}/stats']['get']['responses'][200]>['data'];
export type EventType = Json<paths['/api/webhooks/event-types']['get']['responses'][200]>['data'][number];
/** An endpoint's deliveries that finished in the last 24 hours, as the list carries them. */
export type DayStats = NonNullable<ListItem['stats_24h']>;

/** How often the stats look again while the page is open. */
const STATS_POLL_MS = 10_000;

export function useEndpointStats(id: string, window: StatsWindow) {
  const { api } = useSession();
  return useQuery({
    queryKey: ['webhooks', 'endpoint', id, 'stats', window] as const,
    queryFn: async () =>
      one<EndpointStats>(
        await unwrap(api.GET('/api/webhooks/{id}/stats', { params: { path: { id }, query: { window } } })),
      ),
    refetchInterval: (query) => (query.state.error ? false : STATS_POLL_MS),
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[2] === id ? previous : undefined),
  });
}

/** The event catalogue, its descriptions in the app's language (the client sends it with every call). */
export function useEventTypes() {
  const { api } = useSession();
  const { language } = useI18n();
  return useQuery({
    queryKey: ['webhooks', 'event-types', language] as const,
    queryFn: async () => many<EventType>(await unwrap(api.GET('/api/webhooks/event-types'))),
    staleTime: 60 * 60_000,
  });
}
