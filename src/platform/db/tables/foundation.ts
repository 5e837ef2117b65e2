// Tenants, users, access tokens and login attempts.
import type { Generated } from 'kysely';

export interface TenantsTable {
  id: Generated<number>;
  code: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface UsersTable {
  id: Generated<number>;
  tenant_id: number;
  username: string;
  password_hash: string;
  name: string;
  firstname: string;
  lastname: string;
  picture: string | null;
  role: 'owner' | 'staff';
  /** null: the tenant's (the app's) default language */
  language: 'en' | 'vi' | null;
  email: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface AccessTokensTable {
  id: Generated<number>;
  tenant_id: number;
  user_id: number;
  token_hash: string;
  language: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** Keys of integrations and gateways (`fk_…`): they act as the owner who made them, with their own role. */
export interface ApiKeysTable {
  id: Generated<number>;
  tenant_id: number;
  /** The owner who made it; the key stops working when that user is removed. */
  user_id: number;
  name: string;
  role: 'owner' | 'staff';
  key_hash: string;
  /** The key's first characters, to recognise it in lists (`fk_AbC123`). */
  prefix: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface LoginAttemptsTable {
  id: Generated<number>;
  /** "ip:<address>" or "user:<tenant code>:<username>" */
  bucket: string;
  failed: number;
  at: number;
}

export interface FoundationTables {
  tenants: TenantsTable;
  users: UsersTable;
  access_tokens: AccessTokensTable;
  api_keys: ApiKeysTable;
  login_attempts: LoginAttemptsTable;
}
