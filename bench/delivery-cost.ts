// What one delivery costs, measured in ways the machine's other load moves little: CPU seconds of
// the `furrow serve` process and of the PostgreSQL backends of its database over a backlog, per
// delivery; and on PostgreSQL the WAL the server writes per delivery (the whole server's: run it
// with nothing else on it) and the statements per delivery, counted in the server's log with
// `log_statement = 'all'` set on the bench's database (a drain of its own: logging costs CPU).
//
//   node --import tsx bench/delivery-cost.ts [sqlite|postgres] [alerts (default 500)]
import type { DialectName } from '../src/platform/db/types.js';
import { deploy, ensureCompiled, login } from './lib/furrow.js';
import { adminOf, backendCpu, loggedStatements, logOffset, walPosition } from './lib/postgres-log.js';
import { type BenchReceiver, startReceiver } from './lib/receiver.js';
import { cpuSeconds } from './lib/system.js';
import { addAlertingDevice, addEndpoints, analyzeBacklog, raiseAlerts, receiverEnv } from './lib/webhooks.js';

const RECEIVERS = 10;

const dialect = (process.argv[2] ?? 'postgres') as DialectName;
const alerts = Number(process.argv[3] ?? 500);

async function main(): Promise<void> {
  ensureCompiled();
  const receiver = await startReceiver(RECEIVERS);
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
    await addEndpoints(api, receiver.ports);
    await addAlertingDevice(api);
    await setup.stop();

    const drain = async (logged: boolean) => {
      const apiOnly = await deployment.api();
      await raiseAlerts(await login(apiOnly.url), alerts);
      await apiOnly.stop();
      await analyzeBacklog(deployment.databaseUrl);
      await admin?.query(`alter database "${database}" set log_statement = '${logged ? 'all' : 'none'}'`);
      await receiver.reset();
      const offset = logged ? logOffset() : 0;
      const serve = await deployment.all();
      const total = alerts * RECEIVERS;
      const seen = new Map<number, number>();
      const sample = async () => ({
        furrow: cpuSeconds(serve.child.pid!),
        postgres: admin ? await backendCpu(admin, database, seen) : 0,
        wal: admin ? await walPosition(admin) : 0,
        at: performance.now(),
      });
      // From the first tenth of the backlog received to the last tenth: startup left out.
      const from = Math.ceil(total / 10);
      const to = total - from;
      await receiver.waitFor(from, 120_000);
      const start = await sample();
      await receiver.waitFor(to, 600_000);
      const end = await sample();
      await receiver.waitFor(total, 120_000);
      // The records of the last attempts and the final prune.
      await new Promise((r) => setTimeout(r, 1500));
      await serve.stop();
      const n = to - from;
      const perDelivery = (a: number, b: number) => `${(((b - a) / n) * 1e6).toFixed(0)} µs`;
      process.stdout.write(
        `${dialect}${logged ? ' (statements logged)' : ''}: ${n} deliveries in ${((end.at - start.at) / 1000).toFixed(1)} s; ` +
          `CPU per delivery: furrow ${perDelivery(start.furrow, end.furrow)}` +
          (admin ? `, postgres ${perDelivery(start.postgres, end.postgres)}` : '') +
          (admin ? `; WAL per delivery ${((end.wal - start.wal) / n).toFixed(0)} bytes` : '') +
          '\n',
      );
      if (logged) {
        const kinds = loggedStatements(offset, database);
        const all = [...kinds.values()].reduce((a, b) => a + b.count, 0);
        process.stdout.write(
          `statements over the whole drain of ${total}: ${all}, ${(all / total).toFixed(2)} per delivery\n`,
        );
        for (const [kind, { count }] of [...kinds].sort((a, b) => b[1].count - a[1].count)) {
          process.stdout.write(
            `  ${(count / total).toFixed(3).padStart(7)}  ${count.toString().padStart(6)}  ${kind}\n`,
          );
        }
      }
    };
    await drain(false);
    if (dialect === 'postgres') await drain(true);
    await drain(false);
  } finally {
    await admin?.end();
    await deployment.close();
    (receiver as BenchReceiver).close();
  }
}

await main();
