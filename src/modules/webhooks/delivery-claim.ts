// Claiming due deliveries fairly: the worker leases what its free slots and the endpoints' and
// tenants' shares allow, in one transaction. The statements that find due deliveries are in
// delivery-queue.ts, the share arithmetic in claim-shares.ts.
import { CompiledQuery, type Kysely } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/types.js';
import { pooledRandomBytes } from '../../platform/ids.js';
import { ClaimShares } from './claim-shares.js';
import { type CustomHeaders, parseCustomHeaders } from './custom-headers.js';
import {
  dueHeads,
  endpointsWithQueuedDeliveries,
  nextDueAfter,
  oldestDue,
  type QueuedEndpoint,
  type RowKey,
} from './delivery-queue.js';

export type { QueuedEndpoint } from './delivery-queue.js';

export interface ClaimedDelivery {
  id: number;
  tenantId: number;
  endpointId: number;
  publicId: string;
  eventType: string;
  body: string;
  attemptCount: number;
  maxAttempts: number | null;
  countsTowardPause: boolean;
  url: string;
  endpointPublicId: string;
  secretEncrypted: string;
  /** A rotated-out secret that signs too until `previousSecretExpiresAt` (null: none). */
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: number | null;
  /** The owner's own request headers (null: none). */
  customHeaders: CustomHeaders | null;
  /** This claim's lease token: recording the attempt or releasing the lease must present it. */
  leaseToken: string;
}

export interface ClaimOptions {
  now: number;
  leaseMs: number;
  owner: string;
  limit: number;
  /** Deliveries of one endpoint in flight here, at most. */
  perEndpointLimit: number;
  /** Endpoints held to a lower cap than perEndpointLimit here (see ClaimShares). */
  endpointCaps?: ReadonlyMap<number, number>;
  /**
   * Deliveries of one tenant's endpoints in flight here, at most, while no other tenant has any
   * (default: no cap but the slots); see claimDueDeliveries.
   */
  perTenantLimit?: number;
  /** Deliveries of this endpoint already in flight here. */
  inFlightByEndpoint: ReadonlyMap<number, number>;
  /** Deliveries of this tenant already in flight here. */
  inFlightByTenant?: ReadonlyMap<number, number>;
  /** Deliveries in flight here: never claimed again, even when their lease has run out. */
  inFlightIds?: readonly number[];
  /**
   * The endpoints with queued deliveries as an earlier claim found them, if no delivery has been
   * queued since for an endpoint that was not among them; otherwise they are looked up.
   */
  queuedEndpoints?: readonly QueuedEndpoint[] | undefined;
}

export interface Claim {
  deliveries: ClaimedDelivery[];
  /** Due deliveries were left because their endpoint or tenant has its share of the slots here. */
  capped: boolean;
  /** When capped: the next time a queued delivery falls due after `now` (null: none). */
  nextDueAt?: number | null;
  /**
   * When not capped and fewer were leased than the limit: what nextDueAt (delivery-queue.ts) answers
   * once this claim has committed, read by the lease's statement (null: nothing queued).
   */
  nextDue?: number | null;
  /** The endpoints with queued deliveries, when this claim looked them up. */
  queuedEndpoints?: QueuedEndpoint[];
}

/**
 * Leases up to `limit` due deliveries, oldest first, while each endpoint and each tenant stays within
 * its cap of deliveries in flight here (see ClaimShares). An endpoint's deliveries are claimed in order.
 */
export async function claimDueDeliveries(db: Kysely<Database>, options: ClaimOptions): Promise<Claim> {
  const { now, limit, perEndpointLimit } = options;
  if (limit <= 0) return { deliveries: [], capped: false };
  return db.transaction().execute(async (trx) => {
    const shares = new ClaimShares(options);
    const { chosen } = shares;
    const excluded = () => [...(options.inFlightIds ?? []), ...chosen];
    const { oldest: oldestWindow, window } = shares.windows();
    const oldest = await oldestDue(trx, now, oldestWindow, excluded());
    shares.take(oldest);
    // What follows may all be capped receivers' backlogs, however long: the others' due deliveries
    // are then looked up endpoint by endpoint, so reaching them never means reading those backlogs.
    let walked: QueuedEndpoint[] | undefined;
    if (!shares.full && oldest.length === oldestWindow) {
      if (!options.queuedEndpoints) walked = await endpointsWithQueuedDeliveries(trx);
      const endpoints = options.queuedEndpoints ?? walked ?? [];
      const tenantOf = new Map(endpoints.map((e) => [e.endpointId, e.tenantId]));
      for (;;) {
        const heads = await dueHeads(trx, {
          now,
          endpoints: shares.openEndpoints(endpoints).map((id) => ({ tenantId: tenantOf.get(id) ?? 0, id })),
          skipIds: excluded(),
          perEndpoint: perEndpointLimit,
          window,
        });
        const left = shares.take(heads);
        // Another round only when this one was cut by the window and filled a cap: the next leaves
        // that endpoint or tenant out. Caps only tighten as slots are taken, and each round caps at
        // least one more, so the rounds are few.
        if (shares.full || heads.length < window || left === 0) break;
      }
    }
    const { capped } = shares;
    const answer = { capped, ...(walked ? { queuedEndpoints: walked } : {}) };
    if (chosen.length === 0) {
      return { ...answer, deliveries: [], ...(capped ? { nextDueAt: await nextDueAfter(trx, now) } : {}) };
    }
    // Each claim leases under its own token, so a lease that ran out and was claimed again (by any
    // worker, this one included) can no longer be recorded by the first claim.
    const token = `${options.owner}/${pooledRandomBytes(8).toString('hex')}`;
    const keys = chosen.map((id) => ({ tenantId: shares.tenantOfChosen.get(id) ?? 0, id }));
    // Fewer than the limit and none capped: the worker will want its next due time, read here.
    const withNextDue = !capped && chosen.length < limit;
    const leased = await leaseDeliveries(trx, keys, {
      token,
      until: now + options.leaseMs,
      now,
      withNextDue,
    });
    return {
      ...answer,
      deliveries: leased.deliveries,
      ...(capped ? { nextDueAt: leased.nextDueAt } : {}),
      ...(withNextDue && leased.nextDue !== undefined ? { nextDue: leased.nextDue } : {}),
    };
  });
}

/** A leased delivery's row with its endpoint's, as leaseDeliveries reads them. */
interface LeasedRow {
  id: number;
  tenant_id: number;
  endpoint_id: number;
  public_id: string;
  event_type: string;
  body: string;
  attempt_count: number;
  max_attempts: number | null;
  counts_toward_pause: number;
  url: string;
  endpoint_public_id: string;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: number | string | null;
  headers: string | null;
  next_due_at: number | string | null;
  /** With `withNextDue`: the earliest due time of a queued delivery not leased, and the earliest lease's end. */
  free_at?: number | string | null;
  lease_ends_at?: number | string | null;
}

/**
 * What nextDueAt (delivery-queue.ts) reads, as two more columns of the lease's read: the earliest
 * due time of the queued deliveries not leased (or whose lease has run out), and the earliest end
 * of a lease of a queued delivery. `leased`: a condition true of the rows this claim leases, which
 * PostgreSQL's snapshot still shows unleased; `now` and `until` are parameters.
 */
function nextDueColumns(now: string, until: string, leased: string | undefined): string {
  const queued = "status in ('pending', 'retrying')";
  const free = `(select min(next_attempt_at) from webhook_deliveries where ${queued} and (lease_until is null or lease_until < ${now})${leased ? ` and not (${leased})` : ''}) as free_at`;
  const ends = `(select min(lease_until) from webhook_deliveries where ${queued} and lease_until >= ${now})`;
  return `, ${free}, ${leased ? `least(${ends}, ${until})` : ends} as lease_ends_at`;
}

/**
 * PostgreSQL: the lease and the read in one statement, the ids as one array parameter (one text
 * for any number, so a named statement). The next due time is read from the statement's snapshot,
 * which the lease (not touching next_attempt_at) does not change.
 */
const LEASE_AND_READ = (withNextDue: boolean) => `
with leased as (
  update webhook_deliveries set lease_owner = $1, lease_until = $2
  where (tenant_id, id) in (select * from unnest($3::bigint[], $4::bigint[]))
  returning id, tenant_id, endpoint_id, public_id, event_type, body, attempt_count, max_attempts,
            counts_toward_pause, next_attempt_at
)
select d.id, d.tenant_id, d.endpoint_id, d.public_id, d.event_type, d.body, d.attempt_count,
       d.max_attempts, d.counts_toward_pause, e.url, e.public_id as endpoint_public_id,
       e.secret_encrypted, e.previous_secret_encrypted, e.previous_secret_expires_at, e.headers,
       (select min(next_attempt_at) from webhook_deliveries
        where webhook_deliveries.status in ('pending', 'retrying') and next_attempt_at > $5) as next_due_at
       ${withNextDue ? nextDueColumns('$5', '$2', 'id = any($4::bigint[])') : ''}
from leased d join webhook_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id
order by d.next_attempt_at, d.id`;
const LEASE_AND_READ_TEXTS = [LEASE_AND_READ(false), LEASE_AND_READ(true)] as const;

/**
 * Leases these deliveries under `leaseToken` until `leaseUntil` and reads what sending them takes,
 * oldest first, with `nextDueAt`: when the next queued delivery falls due after `now` (answered
 * here rather than by another statement, for a worker left with capped deliveries).
 */
async function leaseDeliveries(
  trx: Kysely<Database>,
  keys: readonly RowKey[],
  lease: { token: string; until: number; now: number; withNextDue: boolean },
): Promise<{ deliveries: ClaimedDelivery[]; nextDueAt: number | null; nextDue: number | null | undefined }> {
  const rows = isPostgresDb(trx)
    ? (
        await trx.executeQuery<LeasedRow>(
          CompiledQuery.raw(LEASE_AND_READ_TEXTS[lease.withNextDue ? 1 : 0], [
            lease.token,
            lease.until,
            keys.map((k) => k.tenantId),
            keys.map((k) => k.id),
            lease.now,
          ]),
        )
      ).rows
    : await leaseOnSqlite(trx, keys, lease);
  const deliveries = rows.map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    endpointId: r.endpoint_id,
    publicId: r.public_id,
    eventType: r.event_type,
    body: r.body,
    attemptCount: r.attempt_count,
    maxAttempts: r.max_attempts,
    countsTowardPause: r.counts_toward_pause === 1,
    url: r.url,
    endpointPublicId: r.endpoint_public_id,
    secretEncrypted: r.secret_encrypted,
    previousSecretEncrypted: r.previous_secret_encrypted,
    previousSecretExpiresAt:
      r.previous_secret_expires_at === null ? null : Number(r.previous_secret_expires_at),
    customHeaders: parseCustomHeaders(r.headers),
    leaseToken: lease.token,
  }));
  const time = (value: number | string | null | undefined) =>
    value === null || value === undefined ? null : Number(value);
  const first = rows[0];
  const times = [time(first?.free_at), time(first?.lease_ends_at)].filter((t) => t !== null);
  return {
    deliveries,
    nextDueAt: time(first?.next_due_at),
    // No row read (the leased ones gone meanwhile): unknown, and the worker asks nextDueAt.
    nextDue: first === undefined ? undefined : times.length > 0 ? Math.min(...times) : null,
  };
}

/**
 * SQLite (no data-modifying WITH): the lease, then the read, in the claim's transaction. Each is
 * written out once, the ids as one JSON parameter, so neither is built anew per claim.
 */
const SQLITE_LEASE = `update webhook_deliveries set lease_owner = ?, lease_until = ?
  where id in (select value from json_each(?))`;
const SQLITE_LEASED = (withNextDue: boolean) => `
select d.id, d.tenant_id, d.endpoint_id, d.public_id, d.event_type, d.body, d.attempt_count,
       d.max_attempts, d.counts_toward_pause, e.url, e.public_id as endpoint_public_id,
       e.secret_encrypted, e.previous_secret_encrypted, e.previous_secret_expires_at, e.headers,
       (select min(next_attempt_at) from webhook_deliveries
        where webhook_deliveries.status in ('pending', 'retrying') and next_attempt_at > ?) as next_due_at
       ${withNextDue ? nextDueColumns('?', '', undefined) : ''}
from webhook_deliveries d join webhook_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id
where d.id in (select value from json_each(?))
order by d.next_attempt_at, d.id`;
const SQLITE_LEASED_TEXTS = [SQLITE_LEASED(false), SQLITE_LEASED(true)] as const;

async function leaseOnSqlite(
  trx: Kysely<Database>,
  keys: readonly RowKey[],
  lease: { token: string; until: number; now: number; withNextDue: boolean },
): Promise<LeasedRow[]> {
  const ids = JSON.stringify(keys.map((k) => k.id));
  await trx.executeQuery(CompiledQuery.raw(SQLITE_LEASE, [lease.token, lease.until, ids]));
  // better-sqlite3 takes no numbered parameters: `now` is given once for each place it stands.
  const text = SQLITE_LEASED_TEXTS[lease.withNextDue ? 1 : 0];
  const params = lease.withNextDue ? [lease.now, lease.now, lease.now, ids] : [lease.now, ids];
  return (await trx.executeQuery<LeasedRow>(CompiledQuery.raw(text, params))).rows;
}
