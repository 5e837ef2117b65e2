// Idempotency keys of API POSTs (migration 0011): a tenant's key, the request it was first used
// with, and that request's answer once it is known.

export interface IdempotencyKeysTable {
  tenant_id: number;
  idempotency_key: string;
  /** SHA-256 (hex) of method, path and body. */
  request_hash: string;
  /** Random per claim: only the holder settles or releases it. */
  claim_token: string;
  state: 'in_flight' | 'done';
  status_code: number | null;
  /** The kept headers and body as encrypted JSON; null while in flight. */
  answer: string | null;
  /** When the key was claimed (or taken over). */
  created_at: number;
  expires_at: number;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
