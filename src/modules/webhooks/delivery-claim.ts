// Claiming due deliveries fairly: the worker leases what its free slots and the endpoints' and
// tenants' shares allow: on SQLite in one transaction; on PostgreSQL by reading the due deliveries
// and then leasing the chosen ones in one statement that locks them, skipping any another claim
// took meanwhile (a shallow queue in one statement first).
// The statements that find due deliveries are in delivery-queue.ts, those that lease them in
// delivery-lease.ts, the share arithmetic in claim-shares.ts.
import type { Kysely } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/types.js';
import { pooledRandomBytes } from '../../platform/ids.js';
import { ClaimShares, uncappedTake } from './claim-shares.js';
import type { CustomHeaders } from './custom-headers.js';
import { claimAtOnce, leaseDeliveries } from './delivery-lease.js';
import {
  dueHeads,
  endpointsWithQueuedDeliveries,
  nextDueAfter,
  oldestDue,
  type QueuedEndpoint,
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
  /**
   * The queue was shallow at the worker's last claim (it took fewer than it could, none capped): on
   * PostgreSQL try the claim in one statement first (claimAtOnce).
   */
  atOnce?: boolean;
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
  /**
   * The claim failed after its one statement had leased `deliveries` (claimDueDeliveries): those are
   * to be sent all the same, and this reported as the claim's failure.
   */
  error?: unknown;
  /**
   * PostgreSQL: some deliveries the claim chose were leased by another claim (or changed) before
   * its lease: there may be more to claim at once.
   */
  lost?: boolean;
}

/**
 * Leases up to `limit` due deliveries, oldest first, while each endpoint and each tenant stays within
 * its cap of deliveries in flight here (see ClaimShares). An endpoint's deliveries are claimed in order.
 */
export async function claimDueDeliveries(db: Kysely<Database>, options: ClaimOptions): Promise<Claim> {
  if (options.limit <= 0) return { deliveries: [], capped: false };
  if (options.atOnce && isPostgresDb(db)) {
    const { count, leaveOut } = uncappedTake(options);
    if (count > 0) {
      const first = await claimAtOnce(db, options, count, leaveOut);
      if (first.complete) {
        const { deliveries, nextDue } = first;
        return { deliveries, capped: false, ...(deliveries.length < options.limit ? { nextDue } : {}) };
      }
      // More may be due than this could take unchecked: the claim with its shares takes the rest.
      let rest: Claim;
      try {
        rest = await claimWithShares(db, withTaken(options, first.deliveries));
      } catch (error) {
        // Those leased already go (else their leases would hold them back until they run out).
        return { deliveries: first.deliveries, capped: false, error };
      }
      return { ...rest, deliveries: [...first.deliveries, ...rest.deliveries] };
    }
  }
  return claimWithShares(db, options);
}

/** The options of a claim once these deliveries are taken too. */
function withTaken(options: ClaimOptions, taken: readonly ClaimedDelivery[]): ClaimOptions {
  const byEndpoint = new Map(options.inFlightByEndpoint);
  const byTenant = new Map(options.inFlightByTenant ?? []);
  for (const d of taken) {
    byEndpoint.set(d.endpointId, (byEndpoint.get(d.endpointId) ?? 0) + 1);
    byTenant.set(d.tenantId, (byTenant.get(d.tenantId) ?? 0) + 1);
  }
  return {
    ...options,
    limit: options.limit - taken.length,
    inFlightByEndpoint: byEndpoint,
    inFlightByTenant: byTenant,
    inFlightIds: [...(options.inFlightIds ?? []), ...taken.map((d) => d.id)],
  };
}

/**
 * Chooses the deliveries to lease with the shares (ClaimShares), then leases them. On SQLite in one
 * transaction. On PostgreSQL without one: the reads lock nothing (a window of the queue is read to
 * choose a third of it), and the lease's one statement locks the chosen rows, skipping those
 * another claim holds, and leases only those still queued and free, so two claims never lease one
 * delivery; one that lost some says so (`lost`). Two round trips instead of four.
 */
async function claimWithShares(db: Kysely<Database>, options: ClaimOptions): Promise<Claim> {
  const { now, limit, perEndpointLimit } = options;
  if (limit <= 0) return { deliveries: [], capped: false };
  const run = <T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> =>
    isPostgresDb(db) ? work(db) : db.transaction().execute(work);
  return run(async (trx) => {
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
      ...(leased.deliveries.length < keys.length ? { lost: true } : {}),
      ...(capped ? { nextDueAt: leased.nextDueAt } : {}),
      ...(withNextDue && leased.nextDue !== undefined ? { nextDue: leased.nextDue } : {}),
    };
  });
}
