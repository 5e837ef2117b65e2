// Scale-out on PostgreSQL: delivery throughput with 1, 2 and 4 `furrow serve --role worker`
// processes on one database, against receivers that take 100 ms to answer (as real ones do, so that
// neither the receiver nor the database is what limits), and API throughput with 2 API processes
// against 1.
import type { Figure, Settings } from './figures.js';
import { deploy, login } from './lib/furrow.js';
import { load } from './lib/load.js';
import { startReceiver } from './lib/receiver.js';
import { cpuMeter, cpuSeconds, ownCpuSeconds, postgresCpuSeconds } from './lib/system.js';
import {
  addAlertingDevice,
  addEndpoints,
  analyzeBacklog,
  measureWindow,
  raiseAlerts,
  receiverEnv,
} from './lib/webhooks.js';

const RECEIVERS = 10;
const RECEIVER_DELAY_MS = 100;
const WORKER_COUNTS = [1, 2, 4];

export async function benchScaleOut(settings: Settings): Promise<Figure[]> {
  const figures: Figure[] = [];
  if (WORKER_COUNTS.some((n) => settings.wanted(`${n} worker`)) || settings.wanted('workers')) {
    figures.push(...(await workers(settings)));
  }
  if (settings.wanted('2 API processes')) figures.push(...(await apiProcesses(settings)));
  return figures;
}

async function workers(settings: Settings): Promise<Figure[]> {
  const figures: Figure[] = [];
  const receiver = await startReceiver(RECEIVERS);
  const deployment = await deploy('postgres', receiverEnv(receiver));
  try {
    await receiver.delay(RECEIVER_DELAY_MS);
    const apiOnly = await deployment.api();
    const api = await login(apiOnly.url);
    await addEndpoints(api, receiver.ports);
    await addAlertingDevice(api);
    // One backlog for every run; each run takes what it sends in its window from it.
    const alerts = settings.backlogEvents;
    await raiseAlerts(api, alerts);
    await apiOnly.stop();
    await analyzeBacklog(deployment.databaseUrl);
    let one = 0;
    for (const count of WORKER_COUNTS) {
      await receiver.reset();
      const started = await Promise.all(Array.from({ length: count }, () => deployment.worker()));
      const meter = cpuMeter({
        workers: () => started.reduce((sum, w) => sum + cpuSeconds(w.child.pid!), 0),
        receiver: () => cpuSeconds(receiver.pid),
        postgres: postgresCpuSeconds,
      });
      const { rate } = await measureWindow(receiver, { ...settings, backlog: alerts * RECEIVERS });
      const cpu = meter();
      await Promise.all(started.map((w) => w.stop()));
      if (count === 1) one = rate;
      process.stderr.write(`bench: postgres, ${count} worker(s): ${Math.round(rate)} messages/s\n`);
      figures.push({
        section: 'scale-out',
        dialect: 'postgres',
        name: `delivery throughput, ${count} worker process${count > 1 ? 'es' : ''} (receivers answer in ${RECEIVER_DELAY_MS} ms)`,
        value: rate,
        unit: 'messages/s',
        ...(count === 1
          ? {}
          : {
              baseline: { name: '1 worker', value: one },
              ratio: rate / one,
              ...(count === 2 ? { target: { ratio: 1.6 } } : {}),
            }),
        cpu,
      });
    }
  } finally {
    receiver.close();
    await deployment.close();
  }
  return figures;
}

async function apiProcesses(settings: Settings): Promise<Figure[]> {
  const deployment = await deploy('postgres');
  try {
    const first = await deployment.api();
    const second = await deployment.api();
    const api = await login(first.url);
    const path = '/api/crop/crop/1';
    const common = {
      headers: { authorization: `Bearer ${api.token}` },
      connections: 50,
      durationS: settings.durationS,
      warmupS: settings.warmupS,
    };
    const apiCpu = (processes: (typeof first)[]) => ({
      furrow: () => processes.reduce((sum, p) => sum + cpuSeconds(p.child.pid!), 0),
      'load generator': ownCpuSeconds,
      postgres: postgresCpuSeconds,
    });
    const single = await load({ ...common, urls: [`${first.url}${path}`], cpu: apiCpu([first]) });
    const both = await load({
      ...common,
      urls: [`${first.url}${path}`, `${second.url}${path}`],
      cpu: apiCpu([first, second]),
    });
    return [
      {
        section: 'scale-out',
        dialect: 'postgres',
        name: 'crop detail, 2 API processes',
        value: both.rps,
        unit: 'req/s',
        p99Ms: both.p99Ms,
        baseline: { name: '1 API process', value: single.rps },
        ratio: both.rps / single.rps,
        cpu: both.cpu,
        baselineCpu: single.cpu,
        note: 'the load generator shares the two cores',
      },
    ];
  } finally {
    await deployment.close();
  }
}
