// A worker's slots: the deliveries in flight in this process, counted per endpoint and per tenant
// for the fair claim, and how many have finished since the last claim.
import { fairShares } from './claim-shares.js';
import type { ClaimedDelivery } from './delivery-claim.js';

/**
 * While deliveries are in flight, answered ones wake the claiming loop only once this share of a
 * tenant's slots has been freed since the last claim (16 of 32): one claim then leases a batch
 * instead of one delivery at a time, and the other slots keep sending meanwhile. Slots free one by
 * one as answers come in (WorkerSlots.occupy), so a smaller share made claims of 8 and, on SQLite,
 * more CPU per delivery in claims. New events wake it at once.
 */
const CLAIM_BATCH_SHARE = 2;
/**
 * Deliveries in flight here to an endpoint whose receiver stopped answering (its last attempt here
 * timed out or could not connect), until one of its attempts gets an answer: a dead receiver holds
 * one slot while each attempt waits out the timeout, not its whole share.
 */
export const UNANSWERING_CAP = 1;
/** Endpoints remembered as not answering, at most (a bound on memory; forgetting one costs a share). */
const UNANSWERING_KEPT = 10_000;

export interface SlotSizes {
  /** Deliveries in flight at most. */
  slots: number;
  perEndpoint: number;
  perTenant: number;
  /** Finished deliveries that make a batch worth claiming. */
  claimBatch: number;
  /** Finished deliveries of one endpoint that make a batch worth claiming (half its share). */
  endpointBatch: number;
}

/**
 * A worker's slots and caps: the slots wanted, and the caps given or else the fair shares of them.
 * The same on both databases: on PostgreSQL an attempt in flight holds no connection, and attempts
 * are recorded in batches (AttemptRecorder), so the pool's size does not bound the slots.
 */
export function slotSizes(wanted: {
  slots: number;
  perEndpoint?: number | undefined;
  perTenant?: number | undefined;
}): SlotSizes {
  const { slots } = wanted;
  const shares = fairShares(slots);
  const perEndpoint = wanted.perEndpoint ?? shares.perEndpoint;
  const perTenant = wanted.perTenant ?? shares.perTenant;
  const claimBatch = Math.max(1, Math.floor(Math.min(slots, perTenant) / CLAIM_BATCH_SHARE));
  // One endpoint's backlog, alone at its share, would otherwise wait for its whole share to answer
  // (a claim batch of 16 is an endpoint's share of 16) before the next claim.
  const endpointBatch = Math.max(1, Math.min(claimBatch, Math.floor(perEndpoint / 2)));
  return { slots, perEndpoint, perTenant, claimBatch, endpointBatch };
}

export class WorkerSlots {
  /** Every attempt here, from its claim until it is recorded. */
  private readonly attempts = new Map<number, Promise<void>>();
  /** Deliveries holding a slot: claimed, their answer not yet in. */
  private sending = 0;
  /** Deliveries answered whose attempt is still being recorded (their slot freed early). */
  private recording = 0;
  /** Deliveries in flight per endpoint id. */
  readonly byEndpoint = new Map<number, number>();
  /** Deliveries in flight per tenant id. */
  readonly byTenant = new Map<number, number>();
  /** Deliveries finished since the last claim. */
  private freedSinceClaim = 0;
  /** Deliveries finished since the last claim, per endpoint. */
  private readonly freedByEndpoint = new Map<number, number>();
  /** Endpoints with deliveries queued while their share was full (awaitSlot), until a slot frees. */
  private readonly awaited = new Set<number>();
  /**
   * Endpoints whose last attempt here got no answer, each with UNANSWERING_CAP: the caps the claim
   * holds them to (ClaimShares' endpointCaps).
   */
  readonly unanswering = new Map<number, number>();

  /**
   * @param size the slots: deliveries in flight at most
   * @param claimBatch finished deliveries since the last claim that make a batch worth claiming
   * @param endpointBatch finished deliveries of one endpoint since the last claim that do too
   * @param onBatchFreed called whenever a finished delivery makes or adds to such a batch, or frees
   *   a slot of an endpoint awaited (awaitSlot) or not answering (answered)
   */
  constructor(
    readonly size: number,
    private readonly claimBatch: number,
    private readonly onBatchFreed: () => void,
    private readonly endpointBatch = claimBatch,
  ) {}

  /** Slots taken: deliveries claimed whose answer is not yet in. */
  get busy(): number {
    return this.sending;
  }

  /** Attempts here not yet recorded (in a slot or answered). */
  get unfinished(): number {
    return this.attempts.size;
  }

  /**
   * Whether every one of `endpointIds` has `perEndpoint` deliveries in flight here: a claim now would
   * take none of theirs (the endpoint cap of the fair claim).
   */
  allFull(endpointIds: readonly number[], perEndpoint: number): boolean {
    return endpointIds.every(
      (id) =>
        (this.byEndpoint.get(id) ?? 0) >= Math.min(perEndpoint, this.unanswering.get(id) ?? perEndpoint),
    );
  }

  /**
   * An attempt to this endpoint got an answer (any HTTP status) or none (a timeout, a connection or
   * TLS error): an endpoint that stops answering is held to UNANSWERING_CAP in flight here, and its
   * first answer gives it back its share.
   */
  answered(endpointId: number, answered: boolean): void {
    if (answered) {
      // Its share is back: the end of this attempt wakes the claiming loop, as for awaitSlot.
      if (this.unanswering.delete(endpointId)) this.awaited.add(endpointId);
      return;
    }
    if (this.unanswering.size >= UNANSWERING_KEPT && !this.unanswering.has(endpointId))
      this.unanswering.clear();
    this.unanswering.set(endpointId, UNANSWERING_CAP);
  }

  /**
   * Deliveries were queued for these endpoints while their share was full: the next of their
   * attempts to end calls onBatchFreed at once, batch or not. Kept across claims: a claim that
   * begins meanwhile leaves those deliveries for the cap again, and would otherwise wait for a batch.
   */
  awaitSlot(endpointIds: readonly number[]): void {
    for (const id of endpointIds) this.awaited.add(id);
  }

  /** Ids of the deliveries claimed here and not yet recorded: no claim here takes them again. */
  ids(): number[] {
    return [...this.attempts.keys()];
  }

  /** The attempt of a delivery in flight (until it is recorded). */
  attemptOf(deliveryId: number): Promise<void> | undefined {
    return this.attempts.get(deliveryId);
  }

  /** Resolves once every attempt in flight now has ended (been recorded). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.attempts.values()]);
  }

  /** A claim begins: the batch of freed slots starts again. */
  claiming(): void {
    this.freedSinceClaim = 0;
    this.freedByEndpoint.clear();
  }

  /**
   * Starts `attempt` in a slot of its own. The slot is freed when the attempt calls `answered` (its
   * answer is in: what follows, the record, loads the database, not the receiver), or else when
   * it ends. While as many attempts are being recorded as there are slots, an answered attempt
   * keeps its slot until it is recorded: records that fall behind hold back new claims.
   */
  occupy(delivery: ClaimedDelivery, attempt: (answered: () => void) => Promise<void>): void {
    countIn(this.byEndpoint, delivery.endpointId, 1);
    countIn(this.byTenant, delivery.tenantId, 1);
    this.sending += 1;
    let freed = false;
    let early = false;
    const free = () => {
      if (freed) return;
      freed = true;
      this.sending -= 1;
      countIn(this.byEndpoint, delivery.endpointId, -1);
      countIn(this.byTenant, delivery.tenantId, -1);
      this.freedSinceClaim += 1;
      // An endpoint held to fewer slots than a batch frees its next attempt's slot now.
      const awaited = this.awaited.delete(delivery.endpointId) || this.unanswering.has(delivery.endpointId);
      const byEndpoint = (this.freedByEndpoint.get(delivery.endpointId) ?? 0) + 1;
      this.freedByEndpoint.set(delivery.endpointId, byEndpoint);
      if (this.freedSinceClaim >= this.claimBatch || byEndpoint >= this.endpointBatch || awaited)
        this.onBatchFreed();
    };
    const answered = () => {
      if (freed || this.recording >= this.size) return;
      early = true;
      this.recording += 1;
      free();
    };
    const work = attempt(answered).finally(() => {
      this.attempts.delete(delivery.id);
      if (early) this.recording -= 1;
      free();
    });
    this.attempts.set(delivery.id, work);
  }
}

function countIn(counts: Map<number, number>, key: number, change: number): void {
  const n = (counts.get(key) ?? 0) + change;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
