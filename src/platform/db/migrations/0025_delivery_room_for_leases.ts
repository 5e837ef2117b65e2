// PostgreSQL: room on each page of the deliveries for the version of their rows that a lease writes.
// A claim's lease sets lease_owner and lease_until, neither indexed: with room on the row's page the
// new version stays there and no index changes (a HOT update). Packed full (fillfactor 100), as a
// backlog's pages are, every lease wrote its version on another page and an entry into each index
// the row belongs to (five for a queued delivery). Half of each page is left for them: room for
// about one more version of each row.
// The cost is space: the table's pages hold half as many rows (its indexes are unchanged).
// The change is quick on any size of table and takes a SHARE UPDATE EXCLUSIVE lock only, so reads
// and writes go on; pages already written keep their packing until their rows are pruned.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './schema-helpers.js';

/** The share of each page that new rows fill; the rest is kept for versions the leases write. */
const FILL_PERCENT = 50;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql.raw(`alter table webhook_deliveries set (fillfactor = ${FILL_PERCENT})`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql.raw('alter table webhook_deliveries reset (fillfactor)').execute(db);
}
