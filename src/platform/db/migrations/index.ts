// Static import map of migrations, in order. A new migration is a new file and a new line here.
import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0003 from './0003_webhooks.js';

export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0003_webhooks': m0003,
};
