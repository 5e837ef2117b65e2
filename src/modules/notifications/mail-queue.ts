// The mail outbox as a queue: each statement a small function. Mail is claimed under a lease by one
// conditional UPDATE (on PostgreSQL with FOR UPDATE SKIP LOCKED, so workers never take one row both),
// sent outside any transaction, then marked sent, retried later or failed. "Now" is a parameter.
import type { Kysely } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/types.js';
import { pooledRandomBytes } from '../../platform/ids.js';

export interface ClaimedMail {
  id: number;
  tenantId: number;
  to: string;
  subject: string;
  text: string;
  attemptCount: number;
  createdAt: number;
  /** This claim's lease token: marking the mail must present it. */
  leaseToken: string;
  leaseUntil: number;
}

/** Leases up to `limit` due mails (pending, due, not leased by a live claim), oldest first. */
export async function claimDueMail(
  db: Kysely<Database>,
  options: { now: number; leaseMs: number; owner: string; limit: number },
): Promise<ClaimedMail[]> {
  const { now, limit } = options;
  const token = `${options.owner}/${pooledRandomBytes(8).toString('hex')}`;
  const rows = await db
    .updateTable('mail_outbox')
    .set({ lease_owner: token, lease_until: now + options.leaseMs })
    .where('id', 'in', (eb) => {
      const due = eb
        .selectFrom('mail_outbox')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<=', now)]))
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(limit);
      return isPostgresDb(db) ? due.forUpdate().skipLocked() : due;
    })
    // The due test again: on PostgreSQL a row locked and changed by another claim is re-read here.
    .where('status', '=', 'pending')
    .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<=', now)]))
    .returning(['id', 'tenant_id', 'to_address', 'subject', 'text_body', 'attempt_count', 'created_at'])
    .execute();
  return rows
    .map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      to: r.to_address,
      subject: r.subject,
      text: r.text_body,
      attemptCount: r.attempt_count,
      createdAt: Number(r.created_at),
      leaseToken: token,
      leaseUntil: now + options.leaseMs,
    }))
    .sort((a, b) => a.id - b.id);
}

/** The server accepted it. False when the lease was lost meanwhile (it was sent all the same). */
export async function markMailSent(db: Kysely<Database>, mail: ClaimedMail, now: number): Promise<boolean> {
  const result = await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: 'sent',
      sent_at: now,
      attempt_count: eb('attempt_count', '+', 1),
      last_error: null,
      lease_owner: null,
      lease_until: null,
      next_attempt_at: null,
    }))
    .where('tenant_id', '=', mail.tenantId)
    .where('id', '=', mail.id)
    .where('lease_owner', '=', mail.leaseToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A failed attempt: tried again at `retryAt`, or `failed` for good when retryAt is null. */
export async function markMailAttemptFailed(
  db: Kysely<Database>,
  mail: ClaimedMail,
  outcome: { error: string; retryAt: number | null },
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: outcome.retryAt === null ? 'failed' : 'pending',
      attempt_count: eb('attempt_count', '+', 1),
      last_error: outcome.error.slice(0, 1000),
      next_attempt_at: outcome.retryAt,
      lease_owner: null,
      lease_until: null,
    }))
    .where('tenant_id', '=', mail.tenantId)
    .where('id', '=', mail.id)
    .where('lease_owner', '=', mail.leaseToken)
    .execute();
}

/** Gives a claimed mail back untouched (the worker stops before sending it). */
export async function releaseMail(db: Kysely<Database>, mail: ClaimedMail): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ lease_owner: null, lease_until: null })
    .where('tenant_id', '=', mail.tenantId)
    .where('id', '=', mail.id)
    .where('lease_owner', '=', mail.leaseToken)
    .execute();
}

/** Deletes sent and failed mail created before `before`, a batch at a time; answers how many. */
export async function pruneFinishedMail(
  db: Kysely<Database>,
  before: number,
  batchSize = 1000,
): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db
      .deleteFrom('mail_outbox')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('mail_outbox')
          .select('id')
          .where('status', 'in', ['sent', 'failed'])
          .where('created_at', '<', before)
          .limit(batchSize),
      )
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
