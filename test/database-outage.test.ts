// PostgreSQL goes away under load and comes back: every role of `furrow serve` stays up, answers
// 503 in the error shape meanwhile, and resumes by itself with nothing acknowledged lost. Runs on a
// cluster of its own (test/support/pg-cluster.ts), never on the shared server.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { TEST_SECRET_KEY_HEX } from './support/app.js';
import { loginToken } from './support/factories.js';
import { type PgCluster, pgClusterSkip, startPgCluster } from './support/pg-cluster.js';
import {
  migrateAndCreateTenant,
  type ServerProcess,
  startFurrow,
  startFurrowWorker,
} from './support/processes.js';
import { type Receiver, startReceiver } from './support/webhook-receiver.js';

/** In every DATABASE_URL (trust authentication ignores it): it must never show in an answer or a log. */
const DB_PASSWORD = 'pw-never-shown-7c1e';
const OWNER_PASSWORD = 'outage-owner-pw';
const OUTAGE_MS = 4000;
/** The longest any answer may take here: connect timeout 2 s, statement timeout 3 s, and slack. */
const LONGEST_ANSWER_MS = 8000;

interface Answer {
  deployment: string;
  op: string;
  status: number;
  body: any;
  retryAfter: string | null;
  startedAt: number;
  endedAt: number;
  /** The crop name a create sent. */
  name?: string;
  /** Readings sent by a readings call. */
  readings?: number;
}

interface Deployment {
  name: string;
  database: string;
  /** The process that serves HTTP. */
  url: string;
  token: string;
  probeCode: string;
  quietDeviceId: number;
  /** When /readyz first answered 200 after the outage. */
  readyAgainAt?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(
  url: string,
  method: string,
  path: string,
  token: string | undefined,
  json?: unknown,
): Promise<{ status: number; body: any; retryAfter: string | null; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(url + path, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body, retryAfter: res.headers.get('retry-after'), text };
  } catch (err) {
    // No answer at all (the process died, or the request hung past 20 s): status 0.
    return { status: 0, body: String(err), retryAfter: null, text: String(err) };
  }
}

function assertErrorShape503(answer: { status: number; body: any; retryAfter: string | null }, what: string) {
  assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  assert.ok(
    Array.isArray(answer.body) && answer.body.length === 1,
    `${what}: ${JSON.stringify(answer.body)}`,
  );
  assert.equal(answer.body[0].meta.status_code, 503);
  assert.equal(answer.body[0].meta.code, 'database_unavailable', what);
  assert.deepEqual(answer.body[0].data, []);
  assert.match(answer.body[0].meta.message, /database/i);
  assert.ok(!JSON.stringify(answer.body).includes(DB_PASSWORD), 'the password leaked into an answer');
  assert.match(answer.retryAfter ?? '', /^\d+$/, `${what}: Retry-After`);
}

describe('PostgreSQL stopped and started again under load', { skip: pgClusterSkip }, () => {
  let cluster: PgCluster | undefined;
  let receiver: Receiver | undefined;
  const processes: ServerProcess[] = [];
  after(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await receiver?.close();
    await cluster?.destroy();
  });

  it('roles all, api and worker stay up, answer 503 meanwhile and resume with nothing lost', {
    timeout: 150_000,
  }, async () => {
    cluster = await startPgCluster();
    const pgCluster = cluster;
    // Slow enough that a backlog of deliveries is still queued or in flight when the database stops.
    receiver = await startReceiver(() => ({ delayMs: 300 }));
    const hook = receiver;

    const deploy = async (name: string, roles: 'all' | 'split'): Promise<Deployment> => {
      const database = `furrow_${name}`;
      await pgCluster.createDatabase(database);
      const env = {
        DATABASE_URL: pgCluster.url(database, DB_PASSWORD),
        FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX,
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        WEBHOOK_CA_FILE: hook.caFile,
        WEBHOOK_RETRY_SCHEDULE: '1s',
        IOT_SWEEP_INTERVAL_MS: '250',
        DATABASE_CONNECT_TIMEOUT_MS: '2000',
        DATABASE_STATEMENT_TIMEOUT_MS: '3000',
        LOG_LEVEL: 'info',
      };
      await migrateAndCreateTenant(env, name, { username: 'owner', password: OWNER_PASSWORD });
      const started =
        roles === 'all'
          ? [await startFurrow(['serve', '--role', 'all'], { env })]
          : await Promise.all([
              startFurrow(['serve', '--role', 'api'], { env }),
              startFurrowWorker([], { env, timeoutMs: 60_000 }),
            ]);
      processes.push(...started);
      const url = started[0]!.url;
      const token = await loginToken(url, name, { username: 'owner', password: OWNER_PASSWORD });
      const endpoint = await call(url, 'POST', '/api/webhooks', token, {
        url: `${hook.origin}/${name}`,
        events: ['*'],
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      // The load's readings go to `probe`, the burst's to `burst`: a load call committed before the
      // burst would otherwise make every burst reading out of order (older than the device's last).
      for (const code of ['probe', 'burst']) {
        const device = await call(url, 'POST', '/api/iot/devices', token, { code });
        assert.equal(device.status, 201, device.text);
        const rule = await call(url, 'POST', '/api/iot/rules', token, {
          metric: 'temperature',
          operator: 'gt',
          threshold: 35,
          device_id: device.body[0].id,
        });
        assert.equal(rule.status, 201, rule.text);
      }
      const quiet = await call(url, 'POST', '/api/iot/devices', token, {
        code: 'quiet',
        heartbeat_timeout_seconds: 10,
      });
      assert.equal(quiet.status, 201, quiet.text);
      return {
        name,
        database,
        url,
        token,
        probeCode: 'probe',
        quietDeviceId: quiet.body[0].id,
      };
    };
    const deployments = await Promise.all([deploy('all', 'all'), deploy('split', 'split')]);

    // Readings an hour back from now, two per call (normal, then hot): each call that is processed
    // in order raises one alert, so deliveries keep being created.
    let readingSecond = 0;
    const readingsFrom = Date.now() - 55 * 60_000;
    const readingsBody = (code: string, pairs: number) => ({
      readings: Array.from({ length: pairs * 2 }, (_, i) => ({
        device_code: code,
        metric: 'temperature',
        value: i % 2 === 0 ? 20 : 40,
        recorded_at: new Date(readingsFrom + readingSecond++ * 1000).toISOString(),
      })),
    });

    const answers: Answer[] = [];
    let loading = true;
    let sequence = 0;
    const load = async (d: Deployment) => {
      for (let i = 0; loading; i++) {
        const op = ['list', 'create', 'readings', 'list', 'create', 'readings', 'login'][i % 7]!;
        const startedAt = Date.now();
        let answer: Awaited<ReturnType<typeof call>>;
        const extra: Partial<Answer> = {};
        if (op === 'list') {
          answer = await call(d.url, 'GET', '/api/crop/crop?pageLimit=5', d.token);
        } else if (op === 'create') {
          extra.name = `${d.name}-crop-${sequence++}`;
          answer = await call(d.url, 'POST', '/api/crop/crop', d.token, { name: extra.name });
        } else if (op === 'readings') {
          extra.readings = 2;
          answer = await call(d.url, 'POST', '/api/iot/readings', d.token, readingsBody(d.probeCode, 1));
        } else {
          answer = await call(d.url, 'POST', '/api/auth/login', undefined, {
            tenantcode: d.name,
            username: 'owner',
            password: OWNER_PASSWORD,
          });
        }
        answers.push({
          deployment: d.name,
          op,
          status: answer.status,
          body: answer.body,
          retryAfter: answer.retryAfter,
          startedAt,
          endedAt: Date.now(),
          ...extra,
        });
        await sleep(40);
      }
    };
    const loops = deployments.flatMap((d) => [load(d), load(d)]);
    let stoppingAt = 0;
    let downAt = 0;
    let restartingAt = 0;
    let upAt = 0;
    const readyDuringOutage: Awaited<ReturnType<typeof call>>[] = [];
    try {
      await sleep(1500);
      for (const d of deployments) {
        // Heard from just before the outage: it can go offline only after it.
        const beat = await call(d.url, 'POST', '/api/iot/heartbeats', d.token, { device_code: 'quiet' });
        assert.equal(beat.status, 200, beat.text);
        // A burst of alerts: their deliveries are still queued or in flight when the outage starts.
        const burst = await call(d.url, 'POST', '/api/iot/readings', d.token, readingsBody('burst', 40));
        assert.equal(burst.status, 200, burst.text);
        answers.push({
          deployment: d.name,
          op: 'readings',
          status: 200,
          body: burst.body,
          retryAfter: null,
          startedAt: Date.now(),
          endedAt: Date.now(),
          readings: 80,
        });
      }

      stoppingAt = Date.now();
      await pgCluster.stop();
      downAt = Date.now();
      while (Date.now() < downAt + OUTAGE_MS) {
        for (const d of deployments) readyDuringOutage.push(await call(d.url, 'GET', '/readyz', undefined));
        await sleep(250);
      }
      restartingAt = Date.now();
      await pgCluster.start();
      upAt = Date.now();

      // Everything resumes by itself: /readyz turns 200 without anyone touching the processes.
      await Promise.all(
        deployments.map(async (d) => {
          const deadline = Date.now() + 15_000;
          for (;;) {
            const ready = await call(d.url, 'GET', '/readyz', undefined);
            if (ready.status === 200) {
              d.readyAgainAt = Date.now();
              return;
            }
            assert.ok(Date.now() < deadline, `${d.name}: /readyz still ${ready.status} ${ready.text}`);
            await sleep(100);
          }
        }),
      );
      await sleep(2000);
    } finally {
      // The request loops end whatever failed, so the test process can exit.
      loading = false;
      await Promise.all(loops);
    }

    // Every process is still running.
    for (const p of processes) {
      assert.equal(p.child.exitCode, null, `a process exited:\n${p.output()}`);
      assert.equal(p.child.signalCode, null, `a process was killed:\n${p.output()}`);
    }

    // Answers: 2xx or 503 in the error shape, never a 500, never a hang.
    for (const a of answers) {
      assert.ok(
        (a.status >= 200 && a.status < 300) || a.status === 503,
        `${a.deployment} ${a.op} answered ${a.status}: ${JSON.stringify(a.body)}`,
      );
      assert.ok(a.endedAt - a.startedAt < LONGEST_ANSWER_MS, `${a.op} took ${a.endedAt - a.startedAt} ms`);
      if (a.status === 503) assertErrorShape503(a, `${a.deployment} ${a.op}`);
      if (a.op === 'login' && a.status === 200) assert.equal(a.body.meta.status_code, 0);
    }
    for (const d of deployments) {
      const during = answers.filter(
        (a) => a.deployment === d.name && a.startedAt >= downAt && a.endedAt <= restartingAt,
      );
      assert.ok(during.length >= 10, `${d.name}: only ${during.length} requests during the outage`);
      for (const a of during) assert.equal(a.status, 503, `${d.name} ${a.op} during the outage`);
      const afterwards = answers.filter(
        (a) => a.deployment === d.name && a.startedAt >= d.readyAgainAt! + 500,
      );
      assert.ok(afterwards.length >= 5, `${d.name}: only ${afterwards.length} requests after recovery`);
      for (const a of afterwards) assert.ok(a.status < 300, `${d.name} ${a.op} after recovery: ${a.status}`);
    }
    // /readyz said why, without the connection string or its password.
    assert.ok(readyDuringOutage.length >= 4);
    for (const ready of readyDuringOutage) {
      assertErrorShape503(ready, '/readyz during the outage');
      assert.ok(!ready.text.includes(String(pgCluster.port)), 'the database address leaked into /readyz');
    }

    // Nothing acknowledged is lost, nothing refused was kept.
    for (const d of deployments) {
      const mine = answers.filter((a) => a.deployment === d.name);
      const crops = new Set(
        (await pgCluster.query(d.database, 'select name from crops')).map((r: { name: string }) => r.name),
      );
      for (const a of mine.filter((x) => x.op === 'create')) {
        if (a.status === 201)
          assert.ok(crops.has(a.name!), `${d.name}: acknowledged crop ${a.name} is missing`);
        else assert.ok(!crops.has(a.name!), `${d.name}: crop ${a.name} was answered 503 but stored`);
      }
      const [stored] = await pgCluster.query(d.database, 'select count(*)::int as n from iot_readings');
      const acknowledged = mine
        .filter((a) => a.op === 'readings' && a.status === 200)
        .reduce((n, a) => n + a.readings!, 0);
      assert.equal(stored.n, acknowledged, `${d.name}: stored readings vs readings answered 200`);
    }

    // Every event committed reaches the receiver; the backlog of before the outage is sent after it.
    await Promise.all(
      deployments.map(async (d) => {
        const deadline = Date.now() + 25_000;
        for (;;) {
          const [queued] = await pgCluster.query(
            d.database,
            `select count(*)::int as n from webhook_deliveries where status <> 'succeeded'`,
          );
          if (queued.n === 0) break;
          assert.ok(Date.now() < deadline, `${d.name}: ${queued.n} deliveries still not delivered`);
          await sleep(250);
        }
      }),
    );
    for (const d of deployments) {
      // Delivery rows of finished deliveries are pruned to the newest 50: count by alert instead.
      const firstReceived = new Map<number, number>();
      for (const r of hook.requests.filter((q) => q.path === `/${d.name}`)) {
        const message = JSON.parse(r.body);
        if (message.type !== 'iot.alert.raised' || firstReceived.has(message.data.alert_id)) continue;
        firstReceived.set(message.data.alert_id, r.receivedAt);
      }
      const alerts = await pgCluster.query(
        d.database,
        'select id, created_at::float8 as created_at from iot_alerts',
      );
      assert.ok(alerts.length >= 40, `${d.name}: ${alerts.length} alerts`);
      for (const alert of alerts) {
        assert.ok(firstReceived.has(alert.id), `${d.name}: the event of alert ${alert.id} never arrived`);
      }
      const sentAfterOutage = alerts.filter(
        (alert) => alert.created_at < stoppingAt && firstReceived.get(alert.id)! > upAt,
      );
      assert.ok(sentAfterOutage.length > 0, `${d.name}: no event raised before the outage arrived after it`);
    }

    // The workers listen again, and the offline sweeper kept running: the quiet device goes offline.
    for (const d of deployments) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [listening] = await pgCluster.query(
          'postgres',
          `select count(*)::int as n from pg_stat_activity where datname = $1 and query ilike 'listen %'`,
          [d.database],
        );
        if (listening.n >= 1) break;
        assert.ok(Date.now() < deadline, `${d.name}: no worker LISTENs after the outage`);
        await sleep(200);
      }
    }
    await Promise.all(
      deployments.map(async (d) => {
        const deadline = Date.now() + 25_000;
        for (;;) {
          const offline = hook.requests.find(
            (q) => q.path === `/${d.name}` && q.headers['x-service-event'] === 'iot.device.offline',
          );
          if (offline) {
            assert.ok(offline.receivedAt > upAt);
            break;
          }
          assert.ok(Date.now() < deadline, `${d.name}: the quiet device never went offline`);
          await sleep(250);
        }
        const device = await call(d.url, 'GET', `/api/iot/devices/${d.quietDeviceId}`, d.token);
        assert.equal(device.body[0].status, 'offline');
      }),
    );

    for (const p of processes) {
      assert.equal(p.child.exitCode, null, `a process exited:\n${p.output()}`);
      assert.ok(!p.output().includes(DB_PASSWORD), 'the database password appeared in a log');
    }
  });
});
