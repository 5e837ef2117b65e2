// What a batch of readings that raises many alerts costs: requests of 500 crossings of one sensor
// (500 alerts, each an event for 10 endpoints: 5,000 deliveries queued) to an API-only process, so
// nothing is sent. Measured: each request's time, and the CPU of the `furrow serve` process and of
// the PostgreSQL backends of its database per request, over the requests after a first one.
//
//   node --import tsx bench/batch-cost.ts [sqlite|postgres] [requests (default 6)]
import type { DialectName } from '../src/platform/db/types.js';
import { deploy, ensureCompiled, login, ok } from './lib/furrow.js';
import { adminOf, backendCpu } from './lib/postgres-log.js';
import { startReceiver } from './lib/receiver.js';
import { cpuSeconds } from './lib/system.js';
import { addAlertingDevice, addEndpoints, crossings, receiverEnv } from './lib/webhooks.js';

const ENDPOINTS = 10;
const ALERTS = 500;

const dialect = (process.argv[2] ?? 'postgres') as DialectName;
const requests = Number(process.argv[3] ?? 6);

async function main(): Promise<void> {
  ensureCompiled();
  // Its ports only: the endpoints need addresses, and an API-only process sends nothing.
  const receiver = await startReceiver(ENDPOINTS);
  const deployment = await deploy(dialect, receiverEnv(receiver));
  const { database, admin } = await adminOf(dialect, deployment.databaseUrl);
  try {
    const serve = await deployment.api();
    const api = await login(serve.url);
    await addEndpoints(api, receiver.ports);
    await addAlertingDevice(api);
    const body = JSON.parse(crossings(ALERTS));
    const send = async () => {
      const started = performance.now();
      const answer = await ok(api.call('POST', '/api/iot/readings', body));
      const raised = (answer.data.results as { alert_ids: number[] }[]).reduce(
        (n, r) => n + r.alert_ids.length,
        0,
      );
      if (raised !== ALERTS) throw new Error(`${ALERTS} alerts expected, ${raised} raised`);
      return performance.now() - started;
    };
    await send();
    const seen = new Map<number, number>();
    const sample = async () => ({
      furrow: cpuSeconds(serve.child.pid!),
      postgres: admin ? await backendCpu(admin, database, seen) : 0,
    });
    const start = await sample();
    const times: number[] = [];
    for (let i = 0; i < requests; i++) times.push(await send());
    const end = await sample();
    await serve.stop();
    const per = (a: number, b: number) => `${(((b - a) / requests) * 1000).toFixed(0)} ms`;
    process.stdout.write(
      `${dialect}: ${requests} requests of ${ALERTS} alerts to ${ENDPOINTS} endpoints: ` +
        `${times.map((t) => t.toFixed(0)).join(', ')} ms; CPU per request: furrow ${per(start.furrow, end.furrow)}` +
        (admin ? `, postgres ${per(start.postgres, end.postgres)}` : '') +
        '\n',
    );
  } finally {
    await admin?.end();
    await deployment.close();
    receiver.close();
  }
}

await main();
