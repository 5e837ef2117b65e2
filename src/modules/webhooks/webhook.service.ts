// The management API's logic: endpoints with their secrets, test messages, enable (the delivery log
// and redelivery are in webhook-deliveries.service.ts).
import type { Config } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { AppError, notFound, validationFailed } from '../../platform/errors.js';
import { prefixedId } from '../../platform/ids.js';
import { AllowList, checkReceivingUrl, type Resolver, systemResolver } from './address-guard.js';
import { type CustomHeaders, parseCustomHeaders } from './custom-headers.js';
import { notifyDeliveryWorkers } from './delivery-wake-up.js';
import { type EndpointFilters, parseFilters } from './endpoint-filters.js';
import { CATALOGUE_KINDS, catalogueEntry, isCatalogueKind } from './event-catalogue.js';
import { TEST_EVENT_TYPE } from './events.js';
import { newDeliveryRow } from './outbox.js';
import { encryptSecret, newWebhookSecret } from './signing.js';
import {
  countHeld,
  countTestMessages,
  type DeliveryRow,
  deleteEndpoint,
  type EndpointRow,
  findDelivery,
  findEndpoint,
  findEndpointForUpdate,
  insertDeliveries,
  insertEndpoint,
  type LastDeliveryRow,
  lastDeliveries,
  listEndpoints,
  releaseHeldDeliveries,
  updateEndpoint,
} from './webhook.repository.js';
import { DEFAULT_PREVIOUS_SECRET_SECONDS } from './webhook.schemas.js';
import { type Delivery, toDelivery } from './webhook-delivery.presenter.js';
import { checkedCustomHeaders, filtersOf, normalizeEvents } from './webhook-inputs.js';
import { dayStatsOf, type EndpointDayStats } from './webhook-insight.service.js';

/** Test messages of one endpoint queued or in flight at a time. */
export const TEST_MESSAGES_QUEUED = 5;
/** Test messages sent to one endpoint in any minute. */
export const TEST_MESSAGES_PER_MINUTE = 10;
const MINUTE_MS = 60_000;

export interface WebhookDeps {
  clock: Clock;
  config: Pick<Config, 'webhookAllowPrivateHosts' | 'webhookTimeoutMs'>;
  secretKey: Buffer;
  resolver?: Resolver;
}

export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string;
  status: 'active' | 'paused';
  paused_reason: string | null;
  consecutive_failures: number;
  held_count: number;
  headers: CustomHeaders;
  previous_secret_expires_at: string | null;
  last_delivery: LastDelivery | null;
  filters: EndpointFilters | null;
  /** On the list only: deliveries finished in the last 24 hours (webhook-insight.service.ts). */
  stats_24h?: EndpointDayStats;
  created_at: string;
  updated_at: string;
  secret?: string;
}

/** The newest delivery of an endpoint, in a line: what a list of endpoints shows of its log. */
export interface LastDelivery {
  id: string;
  event_type: string;
  status: DeliveryRow['status'];
  created_at: string;
  attempted_at: string | null;
  response_status: number | null;
}

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string;
  /** null clears them. */
  filters?: unknown;
  /** null (on change): remove them all. */
  headers?: CustomHeaders | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What an endpoint's answer reads beside its row: held deliveries and the newest delivery. */
interface EndpointLog {
  held: number;
  last: LastDeliveryRow | undefined;
}

/**
 * The answer for an endpoint at `now` (a previous secret past its expiry no longer signs: none shown).
 * Custom headers are answered with their values: the API is the owners' only, as is the secret.
 */
function toEndpoint(row: EndpointRow, log: EndpointLog, now: number, secret?: string): Endpoint {
  const previousUntil =
    row.previous_secret_expires_at === null ? null : Number(row.previous_secret_expires_at);
  return {
    id: row.public_id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    status: row.status,
    paused_reason: row.paused_reason,
    consecutive_failures: row.consecutive_failures,
    held_count: log.held,
    headers: parseCustomHeaders(row.headers) ?? {},
    previous_secret_expires_at:
      row.previous_secret_encrypted !== null && previousUntil !== null && previousUntil > now
        ? iso(previousUntil)
        : null,
    last_delivery: log.last === undefined ? null : toLastDelivery(log.last),
    filters: parseFilters(row.filters),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...(secret === undefined ? {} : { secret }),
  };
}

function toLastDelivery(row: LastDeliveryRow): LastDelivery {
  return {
    id: row.public_id,
    event_type: row.event_type,
    status: row.status,
    created_at: iso(row.created_at),
    attempted_at: row.started_at === null ? null : iso(row.started_at),
    response_status: row.status_code,
  };
}

async function assertReceivingUrl(deps: WebhookDeps, url: string): Promise<void> {
  const problem = await checkReceivingUrl(
    url,
    new AllowList(deps.config.webhookAllowPrivateHosts),
    deps.resolver ?? systemResolver,
  );
  if (problem) throw validationFailed([{ field: 'url', message: problem.key, params: problem.params }]);
}

export async function requireEndpoint(scope: Scope, id: string): Promise<EndpointRow> {
  const row = await findEndpoint(scope, id);
  if (!row) throw notFound();
  return row;
}

/** The held counts and newest deliveries of these endpoints: two statements, whatever their number. */
async function logsOf(scope: Scope, rows: EndpointRow[]): Promise<(row: EndpointRow) => EndpointLog> {
  const ids = rows.map((r) => r.id);
  const held = await countHeld(scope, ids);
  const last = await lastDeliveries(scope, ids);
  return (row) => ({ held: held.get(row.id) ?? 0, last: last.get(row.id) });
}

async function logOf(scope: Scope, row: EndpointRow): Promise<EndpointLog> {
  return (await logsOf(scope, [row]))(row);
}

/** Every endpoint with its last day's outcomes, counted for the whole list in one grouped statement. */
export async function listWebhookEndpoints(
  deps: Pick<WebhookDeps, 'clock'>,
  scope: Scope,
): Promise<Endpoint[]> {
  const rows = await listEndpoints(scope);
  const log = await logsOf(scope, rows);
  const day = await dayStatsOf(deps, scope, rows);
  const now = deps.clock.now();
  return rows.map((r) => ({ ...toEndpoint(r, log(r), now), stats_24h: day(r.id) }));
}

export async function getWebhookEndpoint(scope: Scope, id: string, now: number): Promise<Endpoint> {
  const row = await requireEndpoint(scope, id);
  return toEndpoint(row, await logOf(scope, row), now);
}

export async function createWebhookEndpoint(
  deps: WebhookDeps,
  scope: Scope,
  input: EndpointInput,
): Promise<Endpoint> {
  const url = input.url.trim();
  const filters = filtersOf(input.filters) ?? null;
  const headers = checkedCustomHeaders(input.headers ?? null);
  await assertReceivingUrl(deps, url);
  const now = deps.clock.now();
  const publicId = prefixedId('ep');
  const secret = newWebhookSecret();
  const row = await insertEndpoint(scope, {
    public_id: publicId,
    url,
    description: input.description ?? '',
    events: JSON.stringify(normalizeEvents(input.events)),
    secret_encrypted: encryptSecret(deps.secretKey, secret, publicId),
    headers,
    status: 'active',
    paused_reason: null,
    consecutive_failures: 0,
    filters,
    created_at: now,
    updated_at: now,
  });
  return toEndpoint(row, { held: 0, last: undefined }, now, secret);
}

/** The new URL of each change whose addresses were looked up before its transaction. */
const checkedUrls = new WeakMap<Partial<EndpointInput>, string>();

/**
 * Looks up a new receiving URL's addresses before the change's transaction (an If-Match change
 * runs in one), so that no transaction waits on DNS.
 */
export async function prepareWebhookEndpointChange(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  input: Partial<EndpointInput>,
): Promise<void> {
  const url = input.url?.trim();
  if (url === undefined) return;
  const row = await requireEndpoint(scope, id);
  if (url === row.url) return;
  await assertReceivingUrl(deps, url);
  checkedUrls.set(input, url);
}

export async function changeWebhookEndpoint(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  input: Partial<EndpointInput>,
): Promise<Endpoint> {
  const row = await requireEndpoint(scope, id);
  const url = input.url?.trim();
  const filters = filtersOf(input.filters);
  const headers = input.headers === undefined ? undefined : checkedCustomHeaders(input.headers);
  if (url !== undefined && url !== row.url && checkedUrls.get(input) !== url) {
    await assertReceivingUrl(deps, url);
  }
  const now = deps.clock.now();
  const updated = await updateEndpoint(scope, row.id, {
    ...(filters === undefined ? {} : { filters }),
    ...(url === undefined ? {} : { url }),
    ...(input.events === undefined ? {} : { events: JSON.stringify(normalizeEvents(input.events)) }),
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(headers === undefined ? {} : { headers }),
    updated_at: now,
  });
  return toEndpoint(updated, await logOf(scope, updated), now);
}

/** Holds an endpoint's row until the caller's transaction ends (PostgreSQL): If-Match and its write. */
export async function lockWebhookEndpoint(scope: Scope, id: string): Promise<void> {
  await findEndpointForUpdate(scope, id);
}

export async function removeWebhookEndpoint(scope: Scope, id: string): Promise<void> {
  const row = await requireEndpoint(scope, id);
  await deleteEndpoint(scope, row.id);
}

/**
 * A new secret, answered once. The current one keeps signing beside it for `expirePreviousInSeconds`
 * (0: stops at once). Rotating during an overlap makes the current secret the previous one: the
 * older one stops signing then, so at most two secrets ever sign.
 */
export async function rotateWebhookSecret(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  expirePreviousInSeconds = DEFAULT_PREVIOUS_SECRET_SECONDS,
): Promise<Endpoint> {
  const row = await requireEndpoint(scope, id);
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  const overlap = expirePreviousInSeconds > 0;
  const updated = await updateEndpoint(scope, row.id, {
    secret_encrypted: encryptSecret(deps.secretKey, secret, row.public_id),
    // Encrypted under the same key and bound to the same endpoint: the stored text moves as it is.
    previous_secret_encrypted: overlap ? row.secret_encrypted : null,
    previous_secret_expires_at: overlap ? now + expirePreviousInSeconds * 1000 : null,
    updated_at: now,
  });
  return toEndpoint(updated, await logOf(scope, updated), now, secret);
}

/** Re-enables an endpoint: the failure streak restarts and held deliveries resume, oldest first. */
export async function enableWebhookEndpoint(deps: WebhookDeps, scope: Scope, id: string): Promise<Endpoint> {
  return inTransaction(scope, async (tx) => {
    const row = await requireEndpoint(tx, id);
    const now = deps.clock.now();
    const updated = await updateEndpoint(tx, row.id, {
      status: 'active',
      paused_reason: null,
      consecutive_failures: 0,
      updated_at: row.status === 'paused' ? now : row.updated_at,
    });
    if ((await releaseHeldDeliveries(tx, row.id, now)) > 0) await notifyDeliveryWorkers(tx.db);
    return toEndpoint(updated, await logOf(tx, updated), now);
  });
}

/**
 * Queues one test message: a webhook.test, or with `eventType` that kind's catalogue example marked
 * `test: true`. Never through emitEvent: only this endpoint gets it, and no mail is written.
 */
export async function sendTestMessage(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  workspaceId: string,
  eventType?: string,
): Promise<Delivery> {
  const message = testMessageOf(eventType);
  return inTransaction(scope, async (tx) => {
    const row = await findEndpointForUpdate(tx, id);
    if (!row) throw notFound();
    const now = deps.clock.now();
    await assertTestMessageAllowed(deps, tx, row.id, now);
    const delivery = newDeliveryRow({
      endpointId: row.id,
      type: message?.type ?? TEST_EVENT_TYPE,
      workspaceId,
      data: message?.data ?? { endpoint_id: row.public_id, message: 'This is a test message from Furrow.' },
      now,
      test: true,
      markedTest: message !== undefined,
    });
    await insertDeliveries(tx, [delivery]);
    await notifyDeliveryWorkers(tx.db);
    const stored = await findDelivery(tx, row.id, delivery.public_id);
    return toDelivery(stored!, []);
  });
}

/** The kind and example data of a test message of an event kind; undefined for a webhook.test. */
function testMessageOf(eventType: string | undefined): { type: string; data: unknown } | undefined {
  if (eventType === undefined || eventType === TEST_EVENT_TYPE) return undefined;
  if (!isCatalogueKind(eventType)) {
    throw validationFailed([
      {
        field: 'event_type',
        message: 'webhook.event_type_unknown',
        params: { values: [...CATALOGUE_KINDS, TEST_EVENT_TYPE].join(', ') },
      },
    ]);
  }
  return { type: eventType, data: catalogueEntry(eventType).example };
}

/**
 * Send test is limited per endpoint: TEST_MESSAGES_QUEUED waiting or in flight, and
 * TEST_MESSAGES_PER_MINUTE. Past either, 429 with Retry-After: for a full queue the timeout (a test
 * message takes at most that once sent), for the rate the time until the oldest of the minute ages out.
 */
async function assertTestMessageAllowed(
  deps: WebhookDeps,
  scope: Scope,
  endpointId: number,
  now: number,
): Promise<void> {
  const counts = await countTestMessages(scope, endpointId, now - MINUTE_MS);
  const tooMany = (
    code: 'webhook.test_rate_limited' | 'webhook.test_queue_full',
    limit: number,
    waitMs: number,
  ) => {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return new AppError(code, 429, { limit, seconds }, [], { 'retry-after': String(seconds) });
  };
  if (counts.recent >= TEST_MESSAGES_PER_MINUTE) {
    throw tooMany(
      'webhook.test_rate_limited',
      TEST_MESSAGES_PER_MINUTE,
      (counts.oldestRecentAt ?? now) + MINUTE_MS - now,
    );
  }
  if (counts.queued >= TEST_MESSAGES_QUEUED) {
    throw tooMany('webhook.test_queue_full', TEST_MESSAGES_QUEUED, deps.config.webhookTimeoutMs);
  }
}
