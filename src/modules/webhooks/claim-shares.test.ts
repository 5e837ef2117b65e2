import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type Candidate, ClaimShares, fairShares, uncappedTake } from './claim-shares.js';

/** `count` due deliveries of one endpoint of one tenant, ids from `firstId` on. */
const rows = (tenantId: number, endpointId: number, count: number, firstId = endpointId * 100): Candidate[] =>
  Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    tenant_id: tenantId,
    endpoint_id: endpointId,
  }));

describe('fairShares', () => {
  it('gives an endpoint a quarter of the slots and a tenant half, at least one each', () => {
    assert.deepEqual(fairShares(64), { perEndpoint: 16, perTenant: 32 });
    assert.deepEqual(fairShares(16), { perEndpoint: 4, perTenant: 8 });
    assert.deepEqual(fairShares(3), { perEndpoint: 1, perTenant: 1 });
    assert.deepEqual(fairShares(1), { perEndpoint: 1, perTenant: 1 });
  });
});

describe('ClaimShares', () => {
  it('takes oldest first up to the free slots; what is left past them is not capped', () => {
    const shares = new ClaimShares({ limit: 2, perEndpointLimit: 10, inFlightByEndpoint: new Map() });
    assert.equal(shares.take(rows(1, 1, 5)), 0);
    assert.deepEqual(shares.chosen, [100, 101]);
    assert.equal(shares.full, true);
    assert.equal(shares.capped, false);
  });

  it('leaves an endpoint at its cap, counting what it already has in flight', () => {
    const shares = new ClaimShares({
      limit: 8,
      perEndpointLimit: 3,
      inFlightByEndpoint: new Map([[2, 2]]),
    });
    assert.equal(shares.take([...rows(1, 1, 5), ...rows(1, 2, 2)]), 3);
    assert.deepEqual(shares.chosen, [100, 101, 102, 200]);
    assert.equal(shares.capped, true);
    assert.equal(shares.endpointFull(1), true);
    assert.equal(shares.endpointFull(2), true);
    assert.equal(shares.endpointFull(3), false);
  });

  it('holds an endpoint with a cap of its own to that cap, never above perEndpointLimit', () => {
    const shares = new ClaimShares({
      limit: 8,
      perEndpointLimit: 3,
      endpointCaps: new Map([
        [1, 1],
        [2, 5],
      ]),
      inFlightByEndpoint: new Map(),
    });
    assert.equal(shares.take([...rows(1, 1, 3), ...rows(1, 2, 4), ...rows(1, 3, 2)]), 3);
    assert.deepEqual(shares.chosen, [100, 200, 201, 202, 300, 301]);
    assert.equal(shares.capOf(1), 1);
    assert.equal(shares.capOf(2), 3);
    assert.equal(shares.endpointFull(1), true);
    assert.equal(shares.capped, true);
  });

  it('without a tenant cap, a tenant may take every slot', () => {
    const shares = new ClaimShares({ limit: 4, perEndpointLimit: 4, inFlightByEndpoint: new Map() });
    assert.equal(shares.perTenantLimit, 4);
    shares.take(rows(1, 1, 4));
    assert.equal(shares.chosen.length, 4);
    assert.equal(shares.capped, false);
  });

  it('gives a tenant perTenantLimit of the slots while no other tenant has any in flight', () => {
    const shares = new ClaimShares({
      limit: 8,
      perEndpointLimit: 8,
      perTenantLimit: 4,
      inFlightByEndpoint: new Map(),
      inFlightByTenant: new Map(),
    });
    assert.equal(shares.take(rows(1, 1, 8)), 4);
    assert.deepEqual(shares.chosen, [100, 101, 102, 103]);
    assert.equal(shares.tenantFull(1), true);
  });

  it("gives a tenant the same share of what the others' attempts leave, so the next still finds a slot", () => {
    // 8 slots: tenant 2 holds 4 of them, 4 are free.
    const shares = new ClaimShares({
      limit: 4,
      perEndpointLimit: 8,
      perTenantLimit: 4,
      inFlightByEndpoint: new Map([[20, 4]]),
      inFlightByTenant: new Map([[2, 4]]),
    });
    assert.equal(shares.slots, 8);
    assert.equal(shares.tenantFull(2), true);
    // Tenant 1: half of the 4 slots tenant 2 leaves.
    assert.equal(shares.take(rows(1, 1, 4)), 2);
    assert.deepEqual(shares.chosen, [100, 101]);
    // Tenant 3: half of the 2 left by the others.
    assert.equal(shares.take(rows(3, 3, 4)), 3);
    assert.deepEqual(shares.chosen, [100, 101, 300]);
    assert.equal(shares.full, false);
  });

  it('never caps a tenant with nothing in flight below one delivery', () => {
    // 4 slots, 3 held by tenant 2: a quarter of the one left rounds down to none, yet one is taken.
    const shares = new ClaimShares({
      limit: 1,
      perEndpointLimit: 1,
      perTenantLimit: 1,
      inFlightByEndpoint: new Map([[20, 3]]),
      inFlightByTenant: new Map([[2, 3]]),
    });
    assert.equal(shares.tenantFull(1), false);
    assert.equal(shares.take(rows(1, 1, 1)), 0);
    assert.deepEqual(shares.chosen, [100]);
  });

  it('lists the endpoints still open, and marks the claim capped when one is left out', () => {
    const shares = new ClaimShares({
      limit: 4,
      perEndpointLimit: 1,
      inFlightByEndpoint: new Map([[2, 1]]),
    });
    const endpoints = [1, 2, 3].map((endpointId) => ({ endpointId, tenantId: 1 }));
    assert.deepEqual(shares.openEndpoints([endpoints[0]!, endpoints[2]!]), [1, 3]);
    assert.equal(shares.capped, false);
    assert.deepEqual(shares.openEndpoints(endpoints), [1, 3]);
    assert.equal(shares.capped, true);
  });

  it('reads a few more than the free slots, and at first not much more than one tenant takes', () => {
    const worker = (limit: number, perTenantLimit: number, perEndpointLimit: number) =>
      new ClaimShares({ limit, perEndpointLimit, perTenantLimit, inFlightByEndpoint: new Map() }).windows();
    assert.deepEqual(worker(64, 32, 16), { oldest: 48, window: 128 });
    assert.deepEqual(worker(10, 32, 16), { oldest: 26, window: 40 });
    assert.deepEqual(worker(1, 1, 1), { oldest: 2, window: 4 });
    assert.deepEqual(worker(1, 1, 8), { oldest: 4, window: 4 });
  });
});

describe('uncappedTake', () => {
  it("takes an idle worker's endpoint share at once, within the room of the endpoints in flight", () => {
    const idle = uncappedTake({
      limit: 64,
      perEndpointLimit: 16,
      perTenantLimit: 32,
      inFlightByEndpoint: new Map(),
    });
    assert.deepEqual(idle, { count: 16, leaveOut: [] });
    const busy = uncappedTake({
      limit: 60,
      perEndpointLimit: 16,
      perTenantLimit: 32,
      endpointCaps: new Map([[9, 1]]),
      inFlightByEndpoint: new Map([
        [1, 1],
        [2, 3],
      ]),
      inFlightByTenant: new Map([[1, 4]]),
    });
    assert.deepEqual(busy, { count: 13, leaveOut: [9] });
    // A tenant at its share: nothing can be taken without checking.
    const full = uncappedTake({
      limit: 32,
      perEndpointLimit: 16,
      perTenantLimit: 32,
      inFlightByEndpoint: new Map([
        [1, 16],
        [2, 16],
      ]),
      inFlightByTenant: new Map([[1, 32]]),
    });
    assert.equal(full.count, 0);
  });

  it('answers a count that ClaimShares takes whole, whatever the deliveries of the endpoints kept in', () => {
    const state = fc
      .record({
        slots: fc.integer({ min: 1, max: 80 }),
        inFlight: fc.array(
          fc.record({ tenant: fc.integer({ min: 1, max: 4 }), endpoint: fc.integer({ min: 1, max: 12 }) }),
          { maxLength: 80 },
        ),
        caps: fc.array(fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 3 })), {
          maxLength: 4,
        }),
        picks: fc.array(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 14 })), {
          maxLength: 80,
        }),
      })
      .filter((s) => s.inFlight.length <= s.slots);
    fc.assert(
      fc.property(state, ({ slots, inFlight, caps, picks }) => {
        const { perEndpoint, perTenant } = fairShares(slots);
        // An endpoint belongs to one tenant: endpoint e to tenant (e % 4) + 1.
        const tenantOf = (endpoint: number) => (endpoint % 4) + 1;
        const byEndpoint = new Map<number, number>();
        const byTenant = new Map<number, number>();
        for (const { endpoint } of inFlight) {
          byEndpoint.set(endpoint, (byEndpoint.get(endpoint) ?? 0) + 1);
          byTenant.set(tenantOf(endpoint), (byTenant.get(tenantOf(endpoint)) ?? 0) + 1);
        }
        const limits = {
          limit: slots - inFlight.length,
          perEndpointLimit: perEndpoint,
          perTenantLimit: perTenant,
          endpointCaps: new Map(caps),
          inFlightByEndpoint: byEndpoint,
          inFlightByTenant: byTenant,
        };
        const { count, leaveOut } = uncappedTake(limits);
        const candidates = picks
          .map(([, endpoint]) => endpoint)
          .filter((endpoint) => !leaveOut.includes(endpoint))
          .slice(0, count)
          .map((endpoint, i) => ({ id: i + 1, tenant_id: tenantOf(endpoint), endpoint_id: endpoint }));
        const shares = new ClaimShares(limits);
        assert.equal(shares.take(candidates), 0);
        assert.equal(shares.chosen.length, candidates.length);
      }),
      { numRuns: 2000 },
    );
  });
});
