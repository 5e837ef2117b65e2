// What one crop create costs on SQLite, measured in a way the machine's pace moves less than a
// ratio: the CPU seconds of the `furrow serve --role api` process (all its threads) and its minor
// page faults over a counted window of creates, per create, with the API section's crop and 50
// connections. Each round starts the process afresh on the same database, warms it up, then
// counts. To compare two builds, run it in each checkout in turns (a worktree of the other commit
// with its own `npm run build:server`).
//
//   node --import tsx bench/create-cost.ts [rounds (default 3)] [connections (default 50)]
import { CROP_INPUT } from './api.js';
import { deploy, ensureCompiled, login } from './lib/furrow.js';
import { load } from './lib/load.js';
import { cpuSeconds, minorFaults } from './lib/system.js';

const WARMUP_S = 3;
const COUNTED_S = 8;

const rounds = Number(process.argv[2] ?? 3);
const connections = Number(process.argv[3] ?? 50);

async function main(): Promise<void> {
  ensureCompiled();
  const deployment = await deploy('sqlite');
  try {
    for (let round = 1; round <= rounds; round++) {
      const serve = await deployment.api();
      const api = await login(serve.url);
      const options = {
        urls: [`${serve.url}/api/crop/crop`],
        method: 'POST' as const,
        body: CROP_INPUT,
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
        connections,
        warmupS: 0,
      };
      await load({ ...options, durationS: WARMUP_S });
      const pid = serve.child.pid!;
      const cpu = cpuSeconds(pid);
      const faults = minorFaults(pid);
      const result = await load({ ...options, durationS: COUNTED_S });
      const creates = result.rps * COUNTED_S;
      const perCreate = ((cpuSeconds(pid) - cpu) * 1e6) / creates;
      process.stdout.write(
        `round ${round}: ${Math.round(result.rps)} creates/s, p99 ${result.p99Ms} ms; per create: ` +
          `${perCreate.toFixed(1)} µs of CPU, ${((minorFaults(pid) - faults) / creates).toFixed(2)} page faults\n`,
      );
      await serve.stop();
    }
  } finally {
    await deployment.close();
  }
}

await main();
