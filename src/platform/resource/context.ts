// Who is acting and for which tenant: the values services and repositories receive. HTTP makes
// them from a request (http/auth.ts, resource/routes.ts); the CLI and tests make them directly.
import type { Clock } from '../clock.js';
import type { Scope } from '../db/scope.js';
import type { Language } from '../i18n.js';

export interface AuthUser {
  id: number;
  username: string;
  name: string;
  firstname: string;
  lastname: string;
  picture: string | null;
  role: 'owner' | 'staff';
}

export interface AuthContext {
  /** The session's access_tokens row; 0 for an API key. */
  tokenId: number;
  /** Set when the request came with an API key (`fk_…`) instead of a person's session. */
  apiKey?: { id: number; lastUsedAt: number | null } | undefined;
  tenant: { id: number; code: string; name: string };
  user: AuthUser;
  /** The language chosen at login, if any: it wins over everything else. */
  language: Language | undefined;
  /** The user's own language (account settings): used when the request names none. */
  userLanguage?: Language | undefined;
}

/** What a service needs from a request: the tenant scope, the clock and the acting user. */
export interface RequestContext {
  scope: Scope;
  clock: Clock;
  user: AuthUser;
  /**
   * What is being answered reads differently from `at` on, with nothing written (a task falls
   * overdue): a kept answer is not used from then on (http/read-cache.ts).
   */
  changesAt?: (at: number) => void;
}

export interface PageQuery {
  page: number;
  pageLimit: number;
}
