// Access tokens already resolved, so a request need not read its token again: SQLite only, where
// the database tells exactly when a token, its user or its tenant may have changed (a logout, a
// password or role change, a deleted user, a write by another process). An entry is trusted while
// nothing of those tables changed since it was read, and never past the token's expiry. Entries are
// keyed by the token itself, so a hit needs no hash; the process holds the tokens of the requests it
// serves anyway, and only their hashes are ever stored.

import type { TableChanges } from '../../platform/db/table-changes.js';
import type { AuthContext } from '../../platform/resource/context.js';

/** The tables an AuthContext is read from. */
const AUTH_TABLES = ['access_tokens', 'users', 'tenants'] as const;
/** Tokens kept at most; past this, the oldest is dropped (a hit does not reorder, see sqlite-driver.ts). */
export const TOKEN_CACHE_SIZE = 10_000;

interface Entry {
  auth: AuthContext;
  expiresAt: number;
  version: number;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly changes: TableChanges) {}

  /** The version to read under: take it before reading, hand it back to `keep`. */
  version(): number {
    return this.changes.version(AUTH_TABLES);
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
