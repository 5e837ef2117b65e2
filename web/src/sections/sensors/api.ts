// The Sensors section's data: devices, their readings (latest and charted), threshold rules and
// alerts. Types come from the generated API schema; every query key starts with 'sensors', so an
// action refreshes all of it at once. Alerts and devices are polled so news shows without a reload.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Api, many, one, type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Body<T> = T extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** An item of a list answer: a plain array or `{data: [...]}`. */
type ItemOf<T> = T extends (infer I)[] ? I : T extends { data: (infer I)[] } ? I : never;
/** A record answer: an array of one, `{data: record}` or the record. */
type RecordOf<T> = T extends (infer I)[] ? I : T extends { data: infer I } ? I : T;

export type Device = Json<paths['/api/iot/devices']['get']['responses'][200]>[number];
export type DeviceInput = Body<paths['/api/iot/devices']['post']>;
export type Rule = Json<paths['/api/iot/rules']['get']['responses'][200]>[number];
export type RuleInput = Body<paths['/api/iot/rules']['post']>;
export type Alert = Json<paths['/api/iot/alerts']['get']['responses'][200]>[number];
export type Reading = Json<paths['/api/iot/devices/{id}/readings']['get']['responses'][200]>[number];
export type SeriesPoint = Json<
  paths['/api/iot/devices/{id}/readings/series']['get']['responses'][200]
>[number];
export type Zone = Json<paths['/api/zones']['get']['responses'][200]>[number];
export type AlertFilters = Omit<
  NonNullable<paths['/api/iot/alerts']['get']['parameters']['query']>,
  'page' | 'pageLimit'
>;

export type UnclaimedDevice = ItemOf<Json<paths['/api/iot/unclaimed-devices']['get']['responses'][200]>>;
export type AdoptInput = Body<paths['/api/iot/unclaimed-devices/{id}/adopt']['post']>;
export type MqttSource = ItemOf<Json<paths['/api/iot/mqtt-sources']['get']['responses'][200]>>;
export type MqttSourceInput = Body<paths['/api/iot/mqtt-sources']['post']>;
export type MqttFormat = MqttSource['format'];
export const MQTT_FORMATS: readonly MqttFormat[] = ['chirpstack', 'tts', 'furrow'];
export type NotificationSettings = RecordOf<
  Json<paths['/api/notifications/settings']['get']['responses'][200]>
>;
export type EmailSettings = NonNullable<Body<paths['/api/notifications/settings']['put']>['email']>;
export type Person = Json<paths['/api/users']['get']['responses'][200]>[number];

export type Operator = Rule['operator'];
export type Severity = Rule['severity'];
export const OPERATORS: readonly Operator[] = ['gt', 'gte', 'lt', 'lte'];
export const SEVERITIES: readonly Severity[] = ['info', 'warning', 'critical'];

/** The periods a chart shows, each with the roll-up the API keeps for it (the API's own defaults). */
export const PERIODS = [
  { id: '24h', bucket: '1m' },
  { id: '7d', bucket: '1h' },
  { id: '30d', bucket: '1d' },
] as const;
export type PeriodId = (typeof PERIODS)[number]['id'];

/** New alerts and devices going offline show within this time while a page is open. */
const POLL_MS = 10_000;
/** A farm has a few dozen devices and rules: one page of them is the whole list. */
const LIST_LIMIT = 200;
/** The newest readings of a device, to learn its metrics and their latest values. */
const LATEST_LIMIT = 200;
/** The alerts shown at once, newest first. */
export const ALERT_LIMIT = 50;

export const keys = {
  all: ['sensors'] as const,
  devices: ['sensors', 'devices'] as const,
  device: (id: number) => ['sensors', 'device', id] as const,
  latest: (id: number) => ['sensors', 'device', id, 'latest'] as const,
  series: (id: number, metric: string, period: PeriodId) =>
    ['sensors', 'device', id, 'series', metric, period] as const,
  rules: ['sensors', 'rules'] as const,
  rule: (id: number) => ['sensors', 'rule', id] as const,
  alerts: (filters: AlertFilters) => ['sensors', 'alerts', filters] as const,
  zones: ['sensors', 'zones'] as const,
  unclaimed: ['sensors', 'unclaimed'] as const,
  mqtt: ['sensors', 'mqtt'] as const,
  mqttSource: (id: number) => ['sensors', 'mqtt', id] as const,
  email: ['sensors', 'email'] as const,
  /** The People section's own list (same call): a change made there shows here too. */
  people: ['people', 'list'] as const,
};

const at = (id: number) => ({ params: { path: { id } } });

export function useDevices() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.devices,
    queryFn: async () =>
      many<Device>(
        await unwrap(api.GET('/api/iot/devices', { params: { query: { page: 0, pageLimit: LIST_LIMIT } } })),
      ),
    refetchInterval: POLL_MS,
  });
}

export function useDevice(id: number, { active = true } = {}) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.device(id),
    queryFn: async () => one<Device>(await unwrap(api.GET('/api/iot/devices/{id}', at(id)))),
    enabled: active,
    refetchInterval: active ? POLL_MS : false,
  });
}

/** The newest readings of a device (its metrics and their latest values). */
export function useLatestReadings(id: number, { active = true } = {}) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.latest(id),
    queryFn: async () =>
      many<Reading>(
        await unwrap(
          api.GET('/api/iot/devices/{id}/readings', {
            params: { path: { id }, query: { page: 0, pageLimit: LATEST_LIMIT } },
          }),
        ),
      ),
    enabled: active,
    refetchInterval: active ? POLL_MS * 3 : false,
  });
}

export function useSeries(id: number, metric: string, period: PeriodId, { active = true } = {}) {
  const { api } = useSession();
  const bucket = PERIODS.find((p) => p.id === period)?.bucket ?? '1h';
  return useQuery({
    queryKey: keys.series(id, metric, period),
    queryFn: async () =>
      many<SeriesPoint>(
        await unwrap(
          api.GET('/api/iot/devices/{id}/readings/series', {
            params: { path: { id }, query: { metric, bucket } },
          }),
        ),
      ),
    enabled: active,
    // The chart keeps the previous period on screen while the next one loads.
    placeholderData: keepPreviousData,
    refetchInterval: active ? 60_000 : false,
  });
}

export function useRules() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.rules,
    queryFn: async () =>
      many<Rule>(
        await unwrap(api.GET('/api/iot/rules', { params: { query: { page: 0, pageLimit: LIST_LIMIT } } })),
      ),
  });
}

export function useRule(id: number | null) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.rule(id ?? 0),
    queryFn: async () => one<Rule>(await unwrap(api.GET('/api/iot/rules/{id}', at(id ?? 0)))),
    enabled: id !== null,
  });
}

export function useZones() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.zones,
    queryFn: async () =>
      many<Zone>(
        await unwrap(api.GET('/api/zones', { params: { query: { page: 0, pageLimit: LIST_LIMIT } } })),
      ),
    staleTime: 60_000,
  });
}

export function useAlerts(filters: AlertFilters) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.alerts(filters),
    queryFn: async () =>
      many<Alert>(
        await unwrap(
          api.GET('/api/iot/alerts', { params: { query: { ...filters, page: 0, pageLimit: ALERT_LIMIT } } }),
        ),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}

export function useAcknowledge() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) =>
      one<Alert>(await unwrap(api.POST('/api/iot/alerts/{id}/acknowledge', at(id)))),
    onSuccess: (acked) => {
      // Shown at once in every list holding it; the lists are then asked again.
      client.setQueriesData<Alert[]>({ queryKey: ['sensors', 'alerts'] }, (list) =>
        list?.map((alert) => (alert.id === acked.id ? acked : alert)),
      );
      return client.invalidateQueries({ queryKey: ['sensors', 'alerts'] });
    },
  });
}

/** An action; afterwards the data under `refresh` is asked again. */
function useSave<I, R>(save: (api: Api, input: I) => Promise<R>, refresh: readonly unknown[]) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: I) => save(api, input),
    onSuccess: () => client.invalidateQueries({ queryKey: refresh }),
  });
}

export function useSaveDevice(id: number | null) {
  return useSave(async (api, input: DeviceInput) => {
    if (id === null) return one<Device>(await unwrap(api.POST('/api/iot/devices', { body: input }))).id;
    await unwrap(api.PUT('/api/iot/devices/{id}', { ...at(id), body: input }));
    return id;
  }, keys.all);
}

export function useSaveRule(id: number | null) {
  return useSave(async (api, input: RuleInput) => {
    if (id === null) return one<Rule>(await unwrap(api.POST('/api/iot/rules', { body: input }))).id;
    await unwrap(api.PUT('/api/iot/rules/{id}', { ...at(id), body: input }));
    return id;
  }, keys.all);
}

export function useDeleteDevice() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/iot/devices/{id}', at(id))),
    // Its page stops asking first (it polls), so no call goes to the removed device.
    onMutate: (id: number) => client.cancelQueries({ queryKey: keys.device(id) }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.devices }),
  });
}

export function useDeleteRule() {
  return useSave((api, id: number) => unwrap(api.DELETE('/api/iot/rules/{id}', at(id))), keys.rules);
}

/** Devices a network server or broker sent data for that no device of the farm claims (owners). */
export function useUnclaimed({ active = true } = {}) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.unclaimed,
    queryFn: async () =>
      many<UnclaimedDevice>(
        await unwrap(
          api.GET('/api/iot/unclaimed-devices', { params: { query: { page: 0, pageLimit: LIST_LIMIT } } }),
        ),
      ),
    enabled: active,
    refetchInterval: active ? POLL_MS : false,
  });
}

export function useAdopt(devEui: string) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: AdoptInput) =>
      one<Device>(
        await unwrap(
          api.POST('/api/iot/unclaimed-devices/{id}/adopt', {
            params: { path: { id: devEui } },
            body: input,
          }),
        ),
      ),
    // Not waited for: the new device's page opens at once.
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keys.all });
    },
  });
}

export function useDismissUnclaimed() {
  return useSave(
    (api, devEui: string) =>
      unwrap(api.DELETE('/api/iot/unclaimed-devices/{id}', { params: { path: { id: devEui } } })),
    keys.unclaimed,
  );
}

/** MQTT brokers the farm's sensors publish to, with whether Furrow is connected (owners). */
export function useMqttSources() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.mqtt,
    queryFn: async () =>
      many<MqttSource>(
        await unwrap(
          api.GET('/api/iot/mqtt-sources', { params: { query: { page: 0, pageLimit: LIST_LIMIT } } }),
        ),
      ),
    refetchInterval: POLL_MS,
  });
}

export function useMqttSource(id: number | null) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.mqttSource(id ?? 0),
    queryFn: async () => one<MqttSource>(await unwrap(api.GET('/api/iot/mqtt-sources/{id}', at(id ?? 0)))),
    enabled: id !== null,
  });
}

export function useSaveMqttSource(id: number | null) {
  return useSave(async (api, input: MqttSourceInput) => {
    if (id === null) {
      return one<MqttSource>(await unwrap(api.POST('/api/iot/mqtt-sources', { body: input }))).id;
    }
    await unwrap(api.PUT('/api/iot/mqtt-sources/{id}', { ...at(id), body: input }));
    return id;
  }, keys.mqtt);
}

export function useDeleteMqttSource() {
  return useSave((api, id: number) => unwrap(api.DELETE('/api/iot/mqtt-sources/{id}', at(id))), keys.mqtt);
}

/** Who is e-mailed of alerts and offline devices (owners). */
export function useEmailSettings() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.email,
    queryFn: async () => one<NotificationSettings>(await unwrap(api.GET('/api/notifications/settings'))),
  });
}

export function useSaveEmailSettings() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (email: EmailSettings) =>
      one<NotificationSettings>(await unwrap(api.PUT('/api/notifications/settings', { body: { email } }))),
    onSuccess: (saved) => {
      client.setQueryData(keys.email, saved);
      return client.invalidateQueries({ queryKey: keys.email });
    },
  });
}

/** The farm's people, to choose who gets e-mails (owners). */
export function usePeople() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.people,
    queryFn: async () =>
      many<Person>(await unwrap(api.GET('/api/users', { params: { query: { page: 0, pageLimit: 1000 } } }))),
  });
}
