// The statements of idempotency keys (platform/http/idempotency.ts is the HTTP side). A key is
// claimed by an insert only one process can win (the primary key is tenant_id + key); the winner
// runs the request and settles the claim with its answer, or releases it when the request failed
// on our side. Every "now" is a parameter.
import type { Kysely } from 'kysely';
import { pooledRandomBytes } from '../ids.js';
import { deleteScoped, groupedWrite, insertScoped, type Scope, selectScoped, updateScoped } from './scope.js';
import type { Database } from './types.js';

export interface KeyClaim {
  key: string;
  requestHash: string;
  now: number;
  /** How long a settled answer is kept. */
  ttlMs: number;
  /** An in-flight claim older than this was left by a process that died: it is taken over. */
  takeoverMs: number;
}

export type ClaimOutcome =
  /** This request holds the key: run it, then settle or release with this token. */
  | { kind: 'claimed'; token: string }
  /** The key's first request is done: answer with what it answered. */
  | { kind: 'replay'; statusCode: number; answer: string }
  /** The key was first used with another method, path or body. */
  | { kind: 'reused' }
  /** The key's first request is still running. */
  | { kind: 'in_use' };

/**
 * Claims a key for a request, or says why not. A key whose answer expired, or whose in-flight claim
 * is older than the takeover age (for the same request), is taken over with an update guarded by
 * the old claim's token, so that of two processes taking over at once one wins.
 */
export function claimIdempotencyKey(scope: Scope, claim: KeyClaim): Promise<ClaimOutcome> {
  return groupedWrite(scope, (tx) => claimKey(tx, claim));
}

async function claimKey(scope: Scope, claim: KeyClaim): Promise<ClaimOutcome> {
  // A claim released between our insert and our read leaves nothing to read: try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = pooledRandomBytes(16).toString('hex');
    const inserted = await insertScoped(scope, 'idempotency_keys', {
      idempotency_key: claim.key,
      request_hash: claim.requestHash,
      claim_token: token,
      state: 'in_flight',
      status_code: null,
      answer: null,
      created_at: claim.now,
      expires_at: claim.now + claim.ttlMs,
    })
      .onConflict((oc) => oc.columns(['tenant_id', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'claimed', token };

    const row = await selectScoped(scope, 'idempotency_keys')
      .select(['request_hash', 'claim_token', 'state', 'status_code', 'answer', 'created_at', 'expires_at'])
      .where('idempotency_key', '=', claim.key)
      .executeTakeFirst();
    if (!row) continue;
    const expired = Number(row.expires_at) <= claim.now;
    const sameRequest = row.request_hash === claim.requestHash;
    const abandoned =
      row.state === 'in_flight' && sameRequest && Number(row.created_at) <= claim.now - claim.takeoverMs;
    if (expired || abandoned) {
      const taken = await updateScoped(scope, 'idempotency_keys')
        .set({
          request_hash: claim.requestHash,
          claim_token: token,
          state: 'in_flight',
          status_code: null,
          answer: null,
          created_at: claim.now,
          expires_at: claim.now + claim.ttlMs,
        })
        .where('idempotency_key', '=', claim.key)
        .where('claim_token', '=', row.claim_token)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { kind: 'claimed', token };
      continue;
    }
    if (!sameRequest) return { kind: 'reused' };
    if (row.state === 'in_flight' || row.status_code === null || row.answer === null)
      return { kind: 'in_use' };
    return { kind: 'replay', statusCode: row.status_code, answer: row.answer };
  }
  return { kind: 'in_use' };
}

/** Keeps a claimed request's answer; false when the claim was taken over meanwhile. */
export async function settleIdempotencyKey(
  scope: Scope,
  key: string,
  token: string,
  answer: { statusCode: number; answer: string },
): Promise<boolean> {
  const result = await groupedWrite(scope, (tx) =>
    updateScoped(tx, 'idempotency_keys')
      .set({ state: 'done', status_code: answer.statusCode, answer: answer.answer })
      .where('idempotency_key', '=', key)
      .where('claim_token', '=', token)
      .where('state', '=', 'in_flight')
      .executeTakeFirst(),
  );
  return Number(result.numUpdatedRows) === 1;
}

/** Gives a key back after a request that failed on our side, so that a retry runs again. */
export async function releaseIdempotencyKey(scope: Scope, key: string, token: string): Promise<void> {
  await groupedWrite(scope, (tx) =>
    deleteScoped(tx, 'idempotency_keys')
      .where('idempotency_key', '=', key)
      .where('claim_token', '=', token)
      .where('state', '=', 'in_flight')
      .execute(),
  );
}

/**
 * Deletes expired keys of every tenant, oldest first, at most about `chunk` per statement (keys
 * expiring in the same millisecond go together). Answers how many went.
 */
export async function pruneIdempotencyKeys(db: Kysely<Database>, now: number, chunk = 1000): Promise<number> {
  let pruned = 0;
  for (;;) {
    const oldest = await db
      .selectFrom('idempotency_keys')
      .select('expires_at')
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(chunk)
      .execute();
    const last = oldest.at(-1);
    if (!last) return pruned;
    const deleted = await db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', Number(last.expires_at))
      .executeTakeFirst();
    pruned += Number(deleted.numDeletedRows);
    if (oldest.length < chunk) return pruned;
  }
}
