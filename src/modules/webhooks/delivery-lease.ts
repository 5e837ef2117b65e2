// Leasing chosen deliveries and reading what sending them takes, in one statement on PostgreSQL
// (and the claim of a shallow queue, chosen, leased and read at once); the claim that chooses them
// with its shares is in delivery-claim.ts.
import { CompiledQuery, type Kysely } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/types.js';
import { pooledRandomBytes } from '../../platform/ids.js';
import { parseCustomHeaders } from './custom-headers.js';
import type { ClaimedDelivery, ClaimOptions } from './delivery-claim.js';
import type { RowKey } from './delivery-queue.js';

/** A leased delivery's row with its endpoint's, as leaseDeliveries reads them. */
interface LeasedRow {
  id: number;
  tenant_id: number;
  endpoint_id: number;
  public_id: string;
  event_type: string;
  body: string;
  attempt_count: number;
  max_attempts: number | null;
  counts_toward_pause: number;
  url: string;
  endpoint_public_id: string;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: number | string | null;
  headers: string | null;
  next_due_at: number | string | null;
  /** With `withNextDue`: the earliest due time of a queued delivery not leased, and the earliest lease's end. */
  free_at?: number | string | null;
  lease_ends_at?: number | string | null;
}

/** What the lease's read answers of a delivery (`d`) and its endpoint (`e`): LeasedRow. */
const SENT_COLUMNS = `d.id, d.tenant_id, d.endpoint_id, d.public_id, d.event_type, d.body, d.attempt_count,
       d.max_attempts, d.counts_toward_pause, e.url, e.public_id as endpoint_public_id,
       e.secret_encrypted, e.previous_secret_encrypted, e.previous_secret_expires_at, e.headers`;

/** What a lease's update returns of a delivery, for SENT_COLUMNS (columns of `prefix`). */
const LEASED_COLUMNS = (prefix: string) =>
  `${prefix}id, ${prefix}tenant_id, ${prefix}endpoint_id, ${prefix}public_id, ${prefix}event_type,
   ${prefix}body, ${prefix}attempt_count, ${prefix}max_attempts, ${prefix}counts_toward_pause,
   ${prefix}next_attempt_at`;

/**
 * What nextDueAt (delivery-queue.ts) reads, as two more columns of the lease's read: the earliest
 * due time of the queued deliveries not leased (or whose lease has run out), and the earliest end
 * of a lease of a queued delivery. `leased`: a condition true of the rows this claim leases, which
 * PostgreSQL's snapshot still shows unleased; `now` and `until` are SQL expressions (`until` the
 * end of this claim's leases).
 */
function nextDueColumns(now: string, until: string, leased: string | undefined): string {
  const queued = "status in ('pending', 'retrying')";
  const free = `(select min(next_attempt_at) from webhook_deliveries where ${queued} and (lease_until is null or lease_until < ${now})${leased ? ` and not (${leased})` : ''}) as free_at`;
  const ends = `(select min(lease_until) from webhook_deliveries where ${queued} and lease_until >= ${now})`;
  return `, ${free}, ${leased ? `least(${ends}, ${until})` : ends} as lease_ends_at`;
}

/**
 * PostgreSQL: the lease and the read in one statement, the ids as one array parameter (one text
 * for any number, so a named statement). The chosen rows were read without a lock: they are locked
 * here, skipping any another claim holds, and leased only while still queued and free at `$5`
 * (another claim may have leased them, or a pause held them, since). The next due time is read from
 * the statement's snapshot, which the lease (not touching next_attempt_at) does not change.
 */
const LEASE_AND_READ = (withNextDue: boolean) => `
with leased as (
  update webhook_deliveries set lease_owner = $1, lease_until = $2
  where (tenant_id, id) in (
    select c.tenant_id, c.id from webhook_deliveries c
    where (c.tenant_id, c.id) in (select * from unnest($3::bigint[], $4::bigint[]))
      and c.status in ('pending', 'retrying') and (c.lease_until is null or c.lease_until < $5)
    for update of c skip locked)
  returning ${LEASED_COLUMNS('')}
)
select ${SENT_COLUMNS},
       (select min(next_attempt_at) from webhook_deliveries
        where webhook_deliveries.status in ('pending', 'retrying') and next_attempt_at > $5) as next_due_at
       ${withNextDue ? nextDueColumns('$5', '$2', 'id = any($4::bigint[])') : ''}
from leased d join webhook_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id
order by d.next_attempt_at, d.id`;
const LEASE_AND_READ_TEXTS = [LEASE_AND_READ(false), LEASE_AND_READ(true)] as const;

/**
 * PostgreSQL: the claim of a shallow queue in one statement, without a transaction of its own: the
 * oldest due deliveries, up to `$4` (a count no share can stop: uncappedTake) and leaving out the
 * endpoints in `$3`, locked (skipping those another claim holds), leased and read with their
 * endpoints. It also answers whether the endpoints left out have due deliveries, and the worker's
 * next due time (nextDueColumns; the new leases' end counts only when there are some, as `least`
 * passes over a null). With nothing leased it answers one row of nulls beside those.
 */
const CLAIM_AT_ONCE = `
with due as (
  select d.tenant_id, d.id from webhook_deliveries d
  where ${dueNow('d')} and d.id <> all($2::bigint[]) and d.endpoint_id <> all($3::bigint[])
  order by d.next_attempt_at, d.id
  limit $4
  for update of d skip locked
), leased as (
  update webhook_deliveries w set lease_owner = $5, lease_until = $6
  from due where w.tenant_id = due.tenant_id and w.id = due.id
  returning ${LEASED_COLUMNS('w.')}
)
select ${SENT_COLUMNS},
       exists (select 1 from webhook_deliveries o
               where ${dueNow('o')} and o.endpoint_id = any($3::bigint[]) and o.id <> all($2::bigint[])) as left_out_due
       ${nextDueColumns('$1', '(select $6::bigint from due limit 1)', 'id in (select id from due)')}
from (select 1) as one
left join (leased d join webhook_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id) on true
order by d.next_attempt_at, d.id`;

/**
 * What oldestDue (delivery-queue.ts) finds, for a table alias: queued, due at `$1`, not leased (or
 * its lease run out), and not held back by its paused endpoint (test messages never are).
 */
function dueNow(alias: string): string {
  return `${alias}.status in ('pending', 'retrying') and ${alias}.next_attempt_at <= $1
    and (${alias}.lease_until is null or ${alias}.lease_until < $1)
    and (${alias}.counts_toward_pause = 0 or exists (select 1 from webhook_endpoints pe
         where pe.tenant_id = ${alias}.tenant_id and pe.id = ${alias}.endpoint_id and pe.status = 'active'))`;
}

/**
 * Claims a shallow queue in one round trip (CLAIM_AT_ONCE). `complete`: nothing was left that the
 * claim with its shares could take (fewer leased than `count`, or every free slot taken, and the
 * endpoints left out have nothing due); then `nextDue` is what nextDueAt would answer.
 */
export async function claimAtOnce(
  db: Kysely<Database>,
  options: ClaimOptions,
  count: number,
  leaveOut: readonly number[],
): Promise<{ deliveries: ClaimedDelivery[]; complete: boolean; nextDue: number | null }> {
  const token = `${options.owner}/${pooledRandomBytes(8).toString('hex')}`;
  const { rows } = await db.executeQuery<LeasedRow & { left_out_due: boolean }>(
    CompiledQuery.raw(CLAIM_AT_ONCE, [
      options.now,
      options.inFlightIds ?? [],
      leaveOut,
      count,
      token,
      options.now + options.leaseMs,
    ]),
  );
  const leased = rows.filter((r) => r.id !== null);
  const deliveries = leased.map((r) => claimedFrom(r, token));
  const first = rows[0];
  const leftOutDue = first?.left_out_due === true;
  return {
    deliveries,
    complete: !leftOutDue && (deliveries.length < count || deliveries.length >= options.limit),
    nextDue: nextDueOf(first) ?? null,
  };
}

/**
 * Leases these deliveries under `leaseToken` until `leaseUntil` and reads what sending them takes,
 * oldest first, with `nextDueAt`: when the next queued delivery falls due after `now` (answered
 * here rather than by another statement, for a worker left with capped deliveries).
 */
export async function leaseDeliveries(
  trx: Kysely<Database>,
  keys: readonly RowKey[],
  lease: { token: string; until: number; now: number; withNextDue: boolean },
): Promise<{ deliveries: ClaimedDelivery[]; nextDueAt: number | null; nextDue: number | null | undefined }> {
  const rows = isPostgresDb(trx)
    ? (
        await trx.executeQuery<LeasedRow>(
          CompiledQuery.raw(LEASE_AND_READ_TEXTS[lease.withNextDue ? 1 : 0], [
            lease.token,
            lease.until,
            keys.map((k) => k.tenantId),
            keys.map((k) => k.id),
            lease.now,
          ]),
        )
      ).rows
    : await leaseOnSqlite(trx, keys, lease);
  const deliveries = rows.map((r) => claimedFrom(r, lease.token));
  const first = rows[0];
  return {
    deliveries,
    nextDueAt: timeOf(first?.next_due_at),
    // No row read (the leased ones gone meanwhile): unknown, and the worker asks nextDueAt.
    nextDue: nextDueOf(first),
  };
}

function timeOf(value: number | string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** The next due time from a row with nextDueColumns (undefined: no row). */
function nextDueOf(row: LeasedRow | undefined): number | null | undefined {
  if (row === undefined) return undefined;
  const times = [timeOf(row.free_at), timeOf(row.lease_ends_at)].filter((t) => t !== null);
  return times.length > 0 ? Math.min(...times) : null;
}

function claimedFrom(r: LeasedRow, leaseToken: string): ClaimedDelivery {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    endpointId: r.endpoint_id,
    publicId: r.public_id,
    eventType: r.event_type,
    body: r.body,
    attemptCount: r.attempt_count,
    maxAttempts: r.max_attempts,
    countsTowardPause: r.counts_toward_pause === 1,
    url: r.url,
    endpointPublicId: r.endpoint_public_id,
    secretEncrypted: r.secret_encrypted,
    previousSecretEncrypted: r.previous_secret_encrypted,
    previousSecretExpiresAt:
      r.previous_secret_expires_at === null ? null : Number(r.previous_secret_expires_at),
    customHeaders: parseCustomHeaders(r.headers),
    leaseToken,
  };
}

/**
 * SQLite (no data-modifying WITH): the lease, then the read, in the claim's transaction. Each is
 * written out once, the ids as one JSON parameter, so neither is built anew per claim.
 */
const SQLITE_LEASE = `update webhook_deliveries set lease_owner = ?, lease_until = ?
  where id in (select value from json_each(?))`;
const SQLITE_LEASED = (withNextDue: boolean) => `
select ${SENT_COLUMNS},
       (select min(next_attempt_at) from webhook_deliveries
        where webhook_deliveries.status in ('pending', 'retrying') and next_attempt_at > ?) as next_due_at
       ${withNextDue ? nextDueColumns('?', '', undefined) : ''}
from webhook_deliveries d join webhook_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id
where d.id in (select value from json_each(?))
order by d.next_attempt_at, d.id`;
const SQLITE_LEASED_TEXTS = [SQLITE_LEASED(false), SQLITE_LEASED(true)] as const;

async function leaseOnSqlite(
  trx: Kysely<Database>,
  keys: readonly RowKey[],
  lease: { token: string; until: number; now: number; withNextDue: boolean },
): Promise<LeasedRow[]> {
  const ids = JSON.stringify(keys.map((k) => k.id));
  await trx.executeQuery(CompiledQuery.raw(SQLITE_LEASE, [lease.token, lease.until, ids]));
  // better-sqlite3 takes no numbered parameters: `now` is given once for each place it stands.
  const text = SQLITE_LEASED_TEXTS[lease.withNextDue ? 1 : 0];
  const params = lease.withNextDue ? [lease.now, lease.now, lease.now, ids] : [lease.now, ids];
  return (await trx.executeQuery<LeasedRow>(CompiledQuery.raw(text, params))).rows;
}
