// The durable ceiling of the delivery figures: a webhook queue written by hand, as plainly as a good
// engineer would, doing the necessary work of a delivery that survives a crash and keeps a log, on
// the same database and to the same receivers as Furrow. Raw undici (bench/lib/receiver.ts) says how
// far Furrow is from sending from memory; this says how far it is from what the database allows.
//
// Per delivery: a lease in a claim of up to CLAIM deliveries (one statement: on PostgreSQL
// `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING`, on SQLite the same without the
// lock, its own short write transaction), the Standard Webhooks signature (HMAC-SHA256), the POST
// through one undici agent, the answer's first bytes read, then the delivery marked succeeded with
// its request headers and an attempt row written, together with the others that ended in the same
// turn (one statement on PostgreSQL, one transaction on SQLite), and each endpoint's log pruned to
// its newest 50 once 200 deliveries have finished. What it leaves out, so the comparison is kind to
// it: tenants and fair shares, failures, retries and pausing, the hourly roll-ups, custom headers,
// secret decryption and rotation, the public-address check at connect, the lease's next due time,
// wake-ups, logging and metrics.
//
// A child process of bench/deliveries.ts: it makes its tables and a backlog of `BACKLOG` copies of
// the message (in a database of its own beside Furrow's: the same server, or a file in the same
// directory), answers "seeded", and sends from "start" until it is killed.
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Agent, request } from 'undici';

const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 32);
const CLAIM = 16;
const LEASE_MS = 60_000;
const LOG_SIZE = 50;
const PRUNE_EVERY = 200;
const SECRET = randomBytes(24);

pg.types.setTypeParser(20, Number);

interface Claimed {
  id: number;
  url: string;
  public_id: string;
  body: string;
  lease_until: number;
}
interface Finished {
  id: number;
  leaseUntil: number;
  startedAt: number;
  durationMs: number;
  statusCode: number;
  excerpt: string;
  headers: string;
}

/** What the queue needs of a database: both kinds below. */
interface Store {
  seed(urls: string[], body: string, count: number): Promise<void>;
  claim(now: number, count: number): Promise<Claimed[]>;
  record(done: Finished[], now: number): Promise<void>;
  prune(url: string): Promise<void>;
}

const SCHEMA = (serial: string) => [
  `create table hand_deliveries (
     id ${serial} primary key, public_id text not null unique, url text not null, body text not null,
     status text not null, attempt_count integer not null, next_attempt_at bigint not null,
     lease_until bigint, request_headers text, finished_at bigint)`,
  `create index hand_deliveries_due on hand_deliveries (next_attempt_at, id) where status = 'pending'`,
  `create index hand_deliveries_log on hand_deliveries (url, finished_at, id) where status = 'succeeded'`,
  `create table hand_attempts (
     id ${serial} primary key,
     delivery_id integer not null references hand_deliveries (id) on delete cascade,
     started_at bigint not null, duration_ms integer not null, status_code integer,
     response_excerpt text)`,
  'create index hand_attempts_delivery on hand_attempts (delivery_id)',
];

const PRUNE = (p: (n: number) => string) => `delete from hand_deliveries
  where url = ${p(1)} and status = 'succeeded' and (finished_at, id) <
    (select finished_at, id from hand_deliveries where url = ${p(1)} and status = 'succeeded'
     order by finished_at desc, id desc limit 1 offset ${LOG_SIZE - 1})`;

function postgresStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    async seed(urls, body, count) {
      for (const statement of SCHEMA('bigserial')) await pool.query(statement);
      await pool.query(
        `insert into hand_deliveries (public_id, url, body, status, attempt_count, next_attempt_at)
         select 'msg_' || n, ($1::text[])[1 + n % cardinality($1::text[])], $2, 'pending', 0, n
         from generate_series(1, $3::int) n`,
        [urls, body, count],
      );
      await pool.query('analyze hand_deliveries');
    },
    async claim(now, count) {
      const { rows } = await pool.query<Claimed>(
        `update hand_deliveries set lease_until = $2
         where id in (select id from hand_deliveries
                      where status = 'pending' and next_attempt_at <= $1
                        and (lease_until is null or lease_until < $1)
                      order by next_attempt_at, id limit $3 for update skip locked)
         returning id, url, public_id, body, lease_until`,
        [now, now + LEASE_MS, count],
      );
      return rows;
    },
    async record(done, now) {
      await pool.query(
        `with i as (select * from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[], $5::int[],
                                         $6::text[], $7::text[])
                    as i(id, lease_until, started_at, duration_ms, status_code, excerpt, headers)),
         u as (update hand_deliveries d
               set status = 'succeeded', attempt_count = d.attempt_count + 1, lease_until = null,
                   request_headers = i.headers, finished_at = $8
               from i where d.id = i.id and d.lease_until = i.lease_until and d.status = 'pending'
               returning d.id)
         insert into hand_attempts (delivery_id, started_at, duration_ms, status_code, response_excerpt)
         select i.id, i.started_at, i.duration_ms, i.status_code, i.excerpt from i join u on u.id = i.id`,
        [
          done.map((d) => d.id),
          done.map((d) => d.leaseUntil),
          done.map((d) => d.startedAt),
          done.map((d) => d.durationMs),
          done.map((d) => d.statusCode),
          done.map((d) => d.excerpt),
          done.map((d) => d.headers),
          now,
        ],
      );
    },
    async prune(url) {
      await pool.query(
        PRUNE((n) => `$${n}`),
        [url],
      );
    },
  };
}

function sqliteStore(file: string): Store {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  let claim: SQLite.Statement;
  let succeeded: SQLite.Statement;
  let attempt: SQLite.Statement;
  let prune: SQLite.Statement;
  const prepare = () => {
    claim = db.prepare(
      `update hand_deliveries set lease_until = ?
       where id in (select id from hand_deliveries
                    where status = 'pending' and next_attempt_at <= ?
                      and (lease_until is null or lease_until < ?)
                    order by next_attempt_at, id limit ?)
       returning id, url, public_id, body, lease_until`,
    );
    succeeded = db.prepare(
      `update hand_deliveries set status = 'succeeded', attempt_count = attempt_count + 1,
         lease_until = null, request_headers = ?, finished_at = ?
       where id = ? and lease_until = ? and status = 'pending'`,
    );
    attempt = db.prepare(
      `insert into hand_attempts (delivery_id, started_at, duration_ms, status_code, response_excerpt)
       values (?, ?, ?, ?, ?)`,
    );
    prune = db.prepare(PRUNE(() => '@url'));
  };
  const record = db.transaction((done: Finished[], now: number) => {
    for (const d of done) {
      if (succeeded.run(d.headers, now, d.id, d.leaseUntil).changes === 1)
        attempt.run(d.id, d.startedAt, d.durationMs, d.statusCode, d.excerpt);
    }
  });
  return {
    async seed(urls, body, count) {
      for (const statement of SCHEMA('integer')) db.exec(statement);
      const insert = db.prepare(
        `insert into hand_deliveries (public_id, url, body, status, attempt_count, next_attempt_at)
         values (?, ?, ?, 'pending', 0, ?)`,
      );
      db.transaction(() => {
        for (let n = 1; n <= count; n++) insert.run(`msg_${n}`, urls[n % urls.length], body, n);
      })();
      db.exec('analyze');
      prepare();
    },
    async claim(now, count) {
      return claim.all(now + LEASE_MS, now, now, count) as Claimed[];
    },
    async record(done, now) {
      record(done, now);
    },
    async prune(url) {
      prune.run({ url });
    },
  };
}

/** The Standard Webhooks headers of a message (signing.ts computes the same). */
function signedHeaders(id: string, body: string, now: number): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const signature = createHmac('sha256', SECRET).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL!;
  const store = databaseUrl.startsWith('sqlite:')
    ? sqliteStore(databaseUrl.slice('sqlite:'.length))
    : postgresStore(databaseUrl);
  const urls = (process.env.RECEIVER_PORTS ?? '').split(',').map((p) => `https://127.0.0.1:${p}/hook`);
  const agent = new Agent({
    connect: { ca: readFileSync(process.env.RECEIVER_CA!, 'utf8') },
    keepAliveTimeout: 10_000,
  });
  await store.seed(urls, process.env.MESSAGE_BODY!, Number(process.env.BACKLOG));

  // Claimed deliveries not yet started; one claim at a time fills it.
  const ready: Claimed[] = [];
  let claiming: Promise<void> | undefined;
  const next = async (): Promise<Claimed | undefined> => {
    if (ready.length === 0) {
      claiming ??= store
        .claim(Date.now(), CLAIM)
        .then((rows) => {
          ready.push(...rows);
        })
        .finally(() => {
          claiming = undefined;
        });
      await claiming;
    }
    return ready.shift();
  };
  // Attempts that end in one turn are recorded together; one batch at a time.
  let toRecord: { done: Finished; resolve: () => void }[] = [];
  let recording = false;
  const writeRecords = async () => {
    recording = true;
    while (toRecord.length > 0) {
      const batch = toRecord;
      toRecord = [];
      await store.record(
        batch.map((r) => r.done),
        Date.now(),
      );
      for (const r of batch) r.resolve();
    }
    recording = false;
  };
  const recordDone = (done: Finished) =>
    new Promise<void>((resolve) => {
      toRecord.push({ done, resolve });
      if (!recording && toRecord.length === 1) setImmediate(() => void writeRecords());
    });
  const finishedOf = new Map<string, number>();
  let pruning = Promise.resolve();

  const slot = async () => {
    for (;;) {
      const d = await next();
      if (!d) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const startedAt = Date.now();
      const headers = signedHeaders(d.public_id, d.body, startedAt);
      const res = await request(d.url, { method: 'POST', headers, body: d.body, dispatcher: agent });
      const excerpt = (await res.body.text()).slice(0, 1024);
      await recordDone({
        id: d.id,
        leaseUntil: d.lease_until,
        startedAt,
        durationMs: Date.now() - startedAt,
        statusCode: res.statusCode,
        excerpt,
        headers: JSON.stringify(headers),
      });
      const finished = (finishedOf.get(d.url) ?? 0) + 1;
      finishedOf.set(d.url, finished);
      if (finished >= PRUNE_EVERY) {
        finishedOf.set(d.url, 0);
        pruning = pruning.then(() => store.prune(d.url));
      }
    }
  };

  // Killed by the bench: an exit of its own, so that a profile (--cpu-prof) is written.
  process.once('SIGTERM', () => process.exit(0));
  process.send!({ cmd: 'seeded' });
  process.once('message', () => {
    for (let i = 0; i < IN_FLIGHT; i++) void slot();
  });
}

main().catch((error) => {
  process.stderr.write(`queue-by-hand: ${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
