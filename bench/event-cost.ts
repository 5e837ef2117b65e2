// What one event costs end to end at a steady rate: a sensor's reading request that raises an alert,
// its delivery claimed, sent and recorded. Measured, over events paced at a rate the machine keeps
// up with: CPU of the `furrow serve` process (user and system) and of the PostgreSQL backends of its
// database, per event; and with `--statements`, the statements per event, by kind (from the
// server's log with `log_min_duration_statement = 0` on the bench's database, a run of its own).
//
//   node --import tsx bench/event-cost.ts [sqlite|postgres] [events (default 1000)] [--statements]
//     [--rate=N (events/s, default 100)] [--readings-only (readings that raise nothing, no endpoint)]
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import type { DialectName } from '../src/platform/db/types.js';
import { deploy, ensureCompiled, login } from './lib/furrow.js';
import { adminOf, backendCpu, loggedStatements, logOffset } from './lib/postgres-log.js';
import { startReceiver } from './lib/receiver.js';
import { addAlertingDevice, addEndpoints, crossings, deviceCode, receiverEnv } from './lib/webhooks.js';

const DEVICES = 20;
const TICKS_PER_SECOND = 100;

const dialect = (process.argv[2] ?? 'postgres') as DialectName;
const events = Number(process.argv[3] ?? 1000);
const withStatements = process.argv.includes('--statements');
const readingsOnly = process.argv.includes('--readings-only');
const RATE = Number(process.argv.find((a) => a.startsWith('--rate='))?.slice('--rate='.length) ?? 100);

function userAndSystem(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
}

async function main(): Promise<void> {
  ensureCompiled();
  const receiver = await startReceiver(1);
  const deployment = await deploy(dialect, receiverEnv(receiver));
  // The database goes with the deployment even when the server's admin connection cannot be had.
  const { database, admin } = await adminOf(dialect, deployment.databaseUrl).catch(async (error) => {
    await deployment.close();
    receiver.close();
    throw error;
  });
  try {
    const setup = await deployment.api();
    const api = await login(setup.url);
    if (!readingsOnly) await addEndpoints(api, receiver.ports);
    await addAlertingDevice(api, DEVICES);
    await setup.stop();
    // A crossing (a reading below the rule's threshold, then one above) raises an alert; readings
    // that stay below raise nothing.
    const quiet = (code: string) =>
      JSON.stringify({
        readings: [20, 21].map((value) => ({ device_code: code, metric: 'temperature', value })),
      });
    const bodies = Array.from({ length: DEVICES }, (_, i) =>
      readingsOnly ? quiet(deviceCode(i)) : crossings(1, deviceCode(i)),
    );

    const run = async (logged: boolean) => {
      if (admin) {
        await admin.query(`alter database "${database}" set log_min_duration_statement = ${logged ? 0 : -1}`);
      }
      const serve = await deployment.all();
      const pid = serve.child.pid!;
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${api.token}` };
      let next = 0;
      const pace = async (count: number) => {
        const started = performance.now();
        const sent: Promise<number>[] = [];
        for (let i = 0; i < count; i++) {
          const wait = started + (i * 1000) / RATE - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const body = bodies[next++ % DEVICES]!;
          sent.push(
            request(`${serve.url}/api/iot/readings`, { method: 'POST', headers, body }).then(async (res) => {
              const answer = (await res.body.json()) as { data?: { results?: { alert_ids?: number[] }[] } };
              if (res.statusCode !== 200) throw new Error(`readings answered ${res.statusCode}`);
              return (answer.data?.results ?? []).reduce((n, r) => n + (r.alert_ids?.length ?? 0), 0);
            }),
          );
        }
        // Requests that overlap may commit out of order (an older reading raises nothing): what
        // counts is the alerts the answers report.
        return (await Promise.all(sent)).reduce((a, b) => a + b, 0);
      };
      // Warm-up, then the measured events (each raises one alert, one delivery).
      await receiver.reset();
      const warmup = Math.min(events, 2 * RATE);
      await receiver.waitFor(await pace(warmup), 30_000);
      await receiver.reset();
      const seen = new Map<number, number>();
      const offset = logged ? logOffset() : 0;
      const before = { ...userAndSystem(pid), postgres: admin ? await backendCpu(admin, database, seen) : 0 };
      await receiver.waitFor(await pace(events), 60_000);
      // The last attempts' records.
      await new Promise((r) => setTimeout(r, 300));
      const after = { ...userAndSystem(pid), postgres: admin ? await backendCpu(admin, database, seen) : 0 };
      await serve.stop();
      const per = (a: number, b: number) => `${(((b - a) / events) * 1e6).toFixed(0)} µs`;
      process.stdout.write(
        `${dialect}${logged ? ' (statements logged)' : ''}: ${events} events at ${RATE}/s; CPU per event: ` +
          `furrow ${per(before.user + before.system, after.user + after.system)} ` +
          `(user ${per(before.user, after.user)}, system ${per(before.system, after.system)})` +
          (admin ? `, postgres ${per(before.postgres, after.postgres)}` : '') +
          '\n',
      );
      if (logged) {
        const kinds = loggedStatements(offset, database, 80);
        const all = [...kinds.values()].reduce((a, b) => a + b.count, 0);
        process.stdout.write(`statements per event: ${(all / events).toFixed(2)}\n`);
        for (const [kind, { count, ms }] of [...kinds].sort((a, b) => b[1].count - a[1].count)) {
          process.stdout.write(
            `  ${(count / events).toFixed(2).padStart(6)}  ${((ms / count) * 1000).toFixed(0).padStart(6)} µs  ${kind}\n`,
          );
        }
      }
    };
    await run(false);
    if (withStatements && admin) await run(true);
    await run(false);
  } finally {
    await admin?.end();
    await deployment.close();
    receiver.close();
  }
}

await main();
