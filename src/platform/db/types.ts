// Row types of the database. Timestamps are epoch milliseconds, booleans 0/1, JSON as text.
// Each feature area declares its tables in tables/<area>.ts; Database is their union.
import type { Kysely, Transaction } from 'kysely';
import type { FoundationTables } from './tables/foundation.js';
import type { IdempotencyTables } from './tables/idempotency.js';
import type { IotTables } from './tables/iot.js';
import type { ListTables } from './tables/lists.js';
import type { NotificationTables } from './tables/notifications.js';
import type { ResourceTables } from './tables/resources.js';
import type { WebhookTables } from './tables/webhooks.js';

export type {
  AccessTokensTable,
  ApiKeysTable,
  LoginAttemptsTable,
  TenantsTable,
  UsersTable,
} from './tables/foundation.js';

export interface Database
  extends FoundationTables,
    ResourceTables,
    WebhookTables,
    IotTables,
    ListTables,
    IdempotencyTables,
    NotificationTables {}

export type Db = Kysely<Database> | Transaction<Database>;
export type DialectName = 'sqlite' | 'postgres';
