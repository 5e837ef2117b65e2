// The mail worker (roles worker and all, only when SMTP_URL is set): claims due mail under a lease,
// sends it through one pooled SMTP transport, marks it sent at once after the server accepted it,
// retries a failure with backoff (1 minute doubling to 1 hour, for up to a day) and prunes finished
// mail after 30 days. It polls every few seconds; several workers share one database.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import nodemailer from 'nodemailer';
import type { BackgroundService } from '../../platform/background.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/types.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import {
  type ClaimedMail,
  claimDueMail,
  markMailAttemptFailed,
  markMailSent,
  pruneFinishedMail,
  releaseMail,
} from './mail-queue.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A failed mail is tried again for this long after it was written, then it is `failed`. */
export const GIVE_UP_AFTER_MS = 24 * HOUR;
/** Sent and failed mail is kept this long (for inspection), then deleted. */
export const KEEP_FINISHED_MS = 30 * 24 * HOUR;
const POLL_MS = 3_000;
const BATCH_SIZE = 10;
/** Each SMTP step (connect, greeting, a command's answer) must come within this. */
const SMTP_TIMEOUT_MS = 20_000;
/** A batch's lease per mail: each may take every SMTP timeout; a minute's margin is added per batch. */
const LEASE_PER_MAIL_MS = 3 * SMTP_TIMEOUT_MS;
const PRUNE_EVERY_MS = HOUR;
/** While the database is unavailable: the pause before recording an outcome again. */
const RECORD_RETRY_MS = 1_000;

/** The wait before attempt `failures + 1`: 1 minute, doubling, at most an hour. */
export function retryDelayMs(failures: number): number {
  return Math.min(HOUR, MINUTE * 2 ** Math.max(0, failures - 1));
}

/** When a mail that failed `failures` times (this one included) is tried again; null: give up. */
export function nextMailAttempt(mail: { createdAt: number }, failures: number, now: number): number | null {
  const at = now + retryDelayMs(failures);
  return at > mail.createdAt + GIVE_UP_AFTER_MS ? null : at;
}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
}

/** A 5xx answer to the recipient or the message is final; anything else (4xx, network, login) is retried. */
export function isPermanentRejection(err: SmtpError): boolean {
  const status = err.responseCode ?? 0;
  return status >= 500 && status < 600 && (err.code === 'EENVELOPE' || err.code === 'EMESSAGE');
}

/** Failures of the server or the connection, not of one message: the next mail would meet them too. */
function isServerFailure(err: SmtpError): boolean {
  return ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'EAUTH', 'ETLS', 'EPROTOCOL'].includes(
    err.code ?? '',
  );
}

export interface MailWorkerDeps {
  db: Kysely<Database>;
  clock: Clock;
  smtpUrl: string;
  mailFrom: string;
  logger?:
    | {
        error(obj: unknown, msg: string): void;
        warn(obj: unknown, msg: string): void;
        info(obj: unknown, msg: string): void;
      }
    | undefined;
}

export interface MailWorkerOptions {
  pollMs?: number;
  batchSize?: number;
}

/** nodemailer's options from SMTP_URL: smtps:// is TLS from the start, smtp:// upgrades when offered. */
function transportOptions(smtpUrl: string) {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  return {
    pool: true as const,
    maxConnections: 2,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    ...(url.username !== ''
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  };
}

export class MailWorker implements BackgroundService {
  readonly name = 'mail worker';
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly transport;
  private readonly password: string;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private lastPruneAt = Number.NEGATIVE_INFINITY;
  private failing = false;

  constructor(
    private readonly deps: MailWorkerDeps,
    options: MailWorkerOptions = {},
  ) {
    this.transport = nodemailer.createTransport(transportOptions(deps.smtpUrl), { from: deps.mailFrom });
    this.password = decodeURIComponent(new URL(deps.smtpUrl).password);
    this.pollMs = options.pollMs ?? POLL_MS;
    this.batchSize = options.batchSize ?? BATCH_SIZE;
  }

  /** One step for tests and the loop: claims what is due now, sends it, marks it. Answers how many were claimed. */
  async runOnce(): Promise<number> {
    const now = this.deps.clock.now();
    const claimed = await claimDueMail(this.deps.db, {
      now,
      leaseMs: this.batchSize * LEASE_PER_MAIL_MS + MINUTE,
      owner: this.id,
      limit: this.batchSize,
    });
    for (const [i, mail] of claimed.entries()) {
      // Stopping: what is not sent yet goes back to the queue for the next worker.
      if (!this.running && this.loopDone !== undefined) {
        for (const rest of claimed.slice(i)) await releaseMail(this.deps.db, rest);
        break;
      }
      const serverDown = await this.send(mail);
      if (serverDown) {
        // The server itself failed (unreachable, login refused): the rest of the batch would fail
        // the same way, each after a timeout. They take this attempt's failure and wait their turn.
        for (const rest of claimed.slice(i + 1)) await this.recordFailure(rest, serverDown);
        break;
      }
    }
    return claimed.length;
  }

  /** runOnce until nothing more is due now. */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  /** Deletes sent and failed mail older than KEEP_FINISHED_MS. */
  async prune(): Promise<number> {
    const now = this.deps.clock.now();
    this.lastPruneAt = now;
    const pruned = await pruneFinishedMail(this.deps.db, now - KEEP_FINISHED_MS);
    if (pruned > 0) this.deps.logger?.info({ pruned }, 'pruned sent and failed mail older than 30 days');
    return pruned;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loopDone;
    this.loopDone = undefined;
    this.transport.close();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let sleepMs = this.pollMs;
      try {
        if (this.deps.clock.now() - this.lastPruneAt >= PRUNE_EVERY_MS) await this.prune();
        const claimed = await this.runOnce();
        this.failing = false;
        if (claimed === this.batchSize) sleepMs = 0;
      } catch (err) {
        // The database being away is logged once per outage, at warn; anything else every time.
        const message = (err as Error).message;
        if (!isDatabaseUnavailable(err)) this.deps.logger?.error({ err: message }, 'mail worker step failed');
        else if (!this.failing)
          this.deps.logger?.warn({ err: message }, 'mail worker: the database is unavailable; trying again');
        this.failing = true;
      }
      if (!this.running) break;
      if (sleepMs === 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleepMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  /** Sends one mail and records the outcome; answers the error when the server itself failed. */
  private async send(mail: ClaimedMail): Promise<SmtpError | undefined> {
    const { db, clock, logger } = this.deps;
    try {
      await this.transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text });
    } catch (err) {
      await this.recordFailure(mail, err as SmtpError);
      return isServerFailure(err as SmtpError) ? (err as SmtpError) : undefined;
    }
    // Marked at once: from here on the mail counts as sent and is never sent again on purpose.
    if (!(await this.untilRecorded(mail, () => markMailSent(db, mail, clock.now()))))
      logger?.warn({ mail: mail.id }, 'mail sent after its lease ran out; another worker may send it again');
    return undefined;
  }

  private async recordFailure(mail: ClaimedMail, err: SmtpError): Promise<void> {
    const { db, clock, logger } = this.deps;
    const failures = mail.attemptCount + 1;
    const retryAt = isPermanentRejection(err) ? null : nextMailAttempt(mail, failures, clock.now());
    const error = this.describe(err);
    await this.untilRecorded(mail, () => markMailAttemptFailed(db, mail, { error, retryAt }));
    const fields = { mail: mail.id, attempt: failures, err: error };
    if (retryAt === null) logger?.error(fields, 'mail not sent; given up');
    else logger?.warn({ ...fields, retry_at: new Date(retryAt).toISOString() }, 'mail not sent; will retry');
  }

  /**
   * Records an outcome, again every second while the database is unavailable and the lease holds: a
   * short outage right after the server accepted a mail must not make it go out a second time.
   */
  private async untilRecorded<T>(mail: ClaimedMail, record: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await record();
      } catch (err) {
        const leaseLeft = mail.leaseUntil - this.deps.clock.now();
        if (!isDatabaseUnavailable(err) || leaseLeft < 2 * RECORD_RETRY_MS) throw err;
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }

  /** The error for last_error and logs: never the SMTP password. */
  private describe(err: SmtpError): string {
    let text = err.message || String(err);
    if (err.code && !text.includes(err.code)) text = `${err.code}: ${text}`;
    if (this.password !== '') text = text.split(this.password).join('***');
    return text.slice(0, 1000);
  }
}

export function createMailWorker(deps: MailWorkerDeps, options?: MailWorkerOptions): MailWorker {
  return new MailWorker(deps, options);
}
