// Access tokens already resolved, so a request need not read its token again. The code that changes
// a token, its user or its tenant says so (`authChanged`: a logout, a password or role change, a
// deleted user). On SQLite a write by another process shows in the database's data version; on
// PostgreSQL every process hears of it by NOTIFY at the writer's commit, and caches nothing while
// it is not listening (db/postgres-changes.ts). An entry is trusted while nothing of those changed
// since it was read, and never past the token's expiry. Entries are keyed by the
// token itself, so a hit needs no hash; the process holds the tokens of the requests it serves
// anyway, and only their hashes are ever stored.

import { type Changes, noteChange } from '../../platform/db/changes.js';
import type { Db } from '../../platform/db/types.js';
import type { AuthContext } from '../../platform/resource/context.js';

/** The change topic of the rows an AuthContext is read from: access_tokens, users and tenants. */
const AUTH_ROWS = 'auth';
/** Tokens kept at most; past this, the oldest is dropped (a hit does not reorder, see db/sqlite/statements.ts). */
export const TOKEN_CACHE_SIZE = 10_000;

/**
 * Tells the token cache that rows of access_tokens, users or tenants may have changed. Every write
 * that may change or remove an existing row of those tables calls it, after the write and in its
 * transaction (`db` is the one that wrote): an update, a delete, an upsert (insert ... on conflict
 * do update). A plain insert need not: a new row changes no AuthContext already read.
 */
export async function authChanged(db: Db): Promise<void> {
  await noteChange(db, AUTH_ROWS);
}

interface Entry {
  auth: AuthContext;
  expiresAt: number;
  version: number;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly changes: Changes) {}

  /** The version to read under: take it before reading, hand it back to `keep`; undefined: do not cache. */
  version(): number | undefined {
    return this.changes.version(AUTH_ROWS);
  }

  find(token: string, version: number, now: number): AuthContext | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.version !== version || entry.expiresAt <= now) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.auth;
  }

  keep(token: string, version: number, auth: AuthContext, expiresAt: number): void {
    this.entries.set(token, { auth, expiresAt, version });
    if (this.entries.size > TOKEN_CACHE_SIZE) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
  }
}
