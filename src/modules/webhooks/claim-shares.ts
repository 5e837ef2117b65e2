// The arithmetic of the fair claim, without a database: how many slots one endpoint and one tenant
// may hold, and which due deliveries a claim may take within those shares.

/**
 * Fair shares of a process's slots, so that a slow or dead receiver costs others nothing: one
 * endpoint holds at most a quarter of them, one tenant's endpoints together at most half.
 */
export const ENDPOINT_SHARE = 1 / 4;
export const TENANT_SHARE = 1 / 2;

/** The caps of a process with `slots` slots: at least one delivery each. */
export function fairShares(slots: number): { perEndpoint: number; perTenant: number } {
  return {
    perEndpoint: Math.max(1, Math.floor(slots * ENDPOINT_SHARE)),
    perTenant: Math.max(1, Math.floor(slots * TENANT_SHARE)),
  };
}

/** A due delivery as the claim's queries find it. */
export interface Candidate {
  id: number;
  tenant_id: number;
  endpoint_id: number;
}

export interface ShareLimits {
  /** Free slots: deliveries this claim may take. */
  limit: number;
  perEndpointLimit: number;
  /**
   * Endpoints held to fewer than perEndpointLimit in flight, and their caps: those whose receivers
   * stopped answering (see WorkerSlots.unanswering).
   */
  endpointCaps?: ReadonlyMap<number, number> | undefined;
  /** Default: every slot. */
  perTenantLimit?: number | undefined;
  inFlightByEndpoint: ReadonlyMap<number, number>;
  inFlightByTenant?: ReadonlyMap<number, number> | undefined;
}

/**
 * One claim's count of the slots: what is in flight per endpoint and per tenant, the deliveries
 * chosen so far, and whether any were left for a cap.
 *
 * A tenant's cap is perTenantLimit while other tenants have nothing in flight here, and otherwise the
 * same share of the slots they leave (half of them by default; at least one): however many tenants
 * fill their shares, a tenant that comes next finds free slots.
 */
export class ClaimShares {
  readonly limit: number;
  readonly perEndpointLimit: number;
  readonly perTenantLimit: number;
  /** Slots in all: the free ones and those in flight. */
  readonly slots: number;
  /** Ids of the deliveries taken, in the order taken. */
  readonly chosen: number[] = [];
  /** The tenant of each delivery taken, by id (the deliveries' key is (tenant_id, id)). */
  readonly tenantOfChosen = new Map<number, number>();
  /** Due deliveries were left because their endpoint or tenant had its share. */
  capped = false;
  private readonly byEndpoint: Map<number, number>;
  private readonly byTenant: Map<number, number>;
  private readonly endpointCaps: ReadonlyMap<number, number>;
  private held: number;

  constructor(limits: ShareLimits) {
    this.limit = limits.limit;
    this.perEndpointLimit = limits.perEndpointLimit;
    this.endpointCaps = limits.endpointCaps ?? new Map();
    this.byEndpoint = new Map(limits.inFlightByEndpoint);
    this.byTenant = new Map(limits.inFlightByTenant ?? []);
    // `limit` is the free slots: the slots are those and the ones in flight.
    this.held = [...this.byTenant.values()].reduce((sum, n) => sum + n, 0);
    this.slots = this.limit + this.held;
    this.perTenantLimit = limits.perTenantLimit ?? this.slots;
  }

  /** Every free slot is taken. */
  get full(): boolean {
    return this.chosen.length >= this.limit;
  }

  /** perTenantLimit of the slots when the other tenants hold none; that share of what they leave. */
  tenantFull(tenantId: number): boolean {
    const mine = this.byTenant.get(tenantId) ?? 0;
    const left = this.slots - (this.held - mine);
    return mine >= Math.max(1, Math.floor((left * this.perTenantLimit) / this.slots));
  }

  /** The deliveries of this endpoint that may be in flight here. */
  capOf(endpointId: number): number {
    return Math.min(this.perEndpointLimit, this.endpointCaps.get(endpointId) ?? this.perEndpointLimit);
  }

  endpointFull(endpointId: number): boolean {
    return (this.byEndpoint.get(endpointId) ?? 0) >= this.capOf(endpointId);
  }

  /** Takes what the caps allow, in the given order; answers how many were left for a cap. */
  take(rows: readonly Candidate[]): number {
    let left = 0;
    for (const row of rows) {
      if (this.full) break;
      const endpoint = this.byEndpoint.get(row.endpoint_id) ?? 0;
      if (endpoint >= this.capOf(row.endpoint_id) || this.tenantFull(row.tenant_id)) {
        left += 1;
        continue;
      }
      this.byEndpoint.set(row.endpoint_id, endpoint + 1);
      this.byTenant.set(row.tenant_id, (this.byTenant.get(row.tenant_id) ?? 0) + 1);
      this.held += 1;
      this.chosen.push(row.id);
      this.tenantOfChosen.set(row.id, row.tenant_id);
    }
    if (left > 0) this.capped = true;
    return left;
  }

  /**
   * The endpoints whose due deliveries may still be taken. An endpoint left out may have due
   * deliveries: they wait for its (or its tenant's) attempts in flight, so the claim is capped.
   */
  openEndpoints(endpoints: readonly { endpointId: number; tenantId: number }[]): number[] {
    const open: number[] = [];
    for (const { endpointId, tenantId } of endpoints) {
      if (this.endpointFull(endpointId) || this.tenantFull(tenantId)) this.capped = true;
      else open.push(endpointId);
    }
    return open;
  }

  /**
   * How many due deliveries to read at a time: a few more than the free slots, for endpoints that
   * reach their cap within this batch, but not much more than one tenant's share (the oldest are
   * mostly one busy tenant's, and what follows them is mostly its own too). `oldest` is for the
   * first read, of the oldest due deliveries; `window` for each read of endpoints' due deliveries.
   */
  windows(): { oldest: number; window: number } {
    const window = Math.min(this.limit * 4, this.limit + 64);
    const oldest = Math.min(window, Math.min(this.limit, this.perTenantLimit) + this.perEndpointLimit);
    return { oldest, window };
  }
}

/**
 * A claim that may take the oldest due deliveries as they come, with no share to check: how many at
 * most, and the endpoints to leave out for that. Any `count` deliveries of the other endpoints, of
 * any tenants, in any order, are all taken by ClaimShares.take; 0 when no such claim can be made.
 *
 * An endpoint with attempts in flight here (or a cap of its own) keeps the count within its room
 * unless that room is less than half of an endpoint's share, and is then left out. A tenant's cap
 * shrinks as other tenants take slots, so each tenant is checked against the worst the claim could
 * do: `count - 1` of its own taken before its last, and `count - 1` of others'.
 */
export function uncappedTake(limits: ShareLimits): { count: number; leaveOut: number[] } {
  const shares = new ClaimShares(limits);
  const { slots, perTenantLimit, perEndpointLimit } = shares;
  let count = Math.min(shares.limit, perEndpointLimit);
  const leaveOut: number[] = [];
  const endpoints = new Set([...limits.inFlightByEndpoint.keys(), ...(limits.endpointCaps?.keys() ?? [])]);
  for (const endpointId of endpoints) {
    const room = shares.capOf(endpointId) - (limits.inFlightByEndpoint.get(endpointId) ?? 0);
    if (room < Math.max(1, perEndpointLimit / 2)) leaveOut.push(endpointId);
    else count = Math.min(count, room);
  }
  const byTenant = limits.inFlightByTenant ?? new Map<number, number>();
  const held = [...byTenant.values()].reduce((sum, n) => sum + n, 0);
  // The tenants in flight here, and one with nothing in flight (any other).
  const tenants = [...byTenant.values(), 0];
  const tenantsAllow = (n: number) =>
    tenants.every(
      (mine) =>
        mine + n - 1 < Math.max(1, Math.floor(((slots - (held - mine) - (n - 1)) * perTenantLimit) / slots)),
    );
  while (count > 0 && !tenantsAllow(count)) count -= 1;
  return { count, leaveOut };
}
