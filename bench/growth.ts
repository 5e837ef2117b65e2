// Reads as the tenant grows: the same reads with 10 k, 100 k and 1 M crops and tasks in the tenant
// (and as many in another tenant), each against the same read at the first scale, in one run.
import { bulkWorkTimeouts, openDatabase } from '../src/platform/db/database.js';
import type { DialectName } from '../src/platform/db/types.js';
import type { Figure, Settings } from './figures.js';
import { deploy, login, tenantIds } from './lib/furrow.js';
import { load } from './lib/load.js';
import {
  analyzeLikeAutovacuum,
  middleDay,
  SEARCH_TERM,
  SELECTIVE_TERM,
  seedCrops,
  seedTasks,
} from './lib/seed.js';
import { cpuSeconds, ownCpuSeconds, postgresCpuSeconds } from './lib/system.js';

const CONNECTIONS = 10;

interface Read {
  name: string;
  path: (rows: number) => string;
  /** First-page and search reads are held to the target; deep pages are reported. */
  targeted: boolean;
}

const READS: Read[] = [
  { name: 'crop list, first page', path: () => '/api/crop/crop?page=0&pageLimit=20', targeted: true },
  {
    name: 'crop list, page in the middle',
    path: (rows) => `/api/crop/crop?page=${Math.floor(rows / 40)}&pageLimit=20`,
    targeted: false,
  },
  {
    name: `crop search[name]=${SEARCH_TERM} (20 matches)`,
    path: () => `/api/crop/crop?search[name]=${encodeURIComponent(SEARCH_TERM)}&pageLimit=20`,
    targeted: true,
  },
  {
    name: `crop search[name]=${SELECTIVE_TERM} (20 matches, a name no other crop shares)`,
    path: () => `/api/crop/crop?search[name]=${encodeURIComponent(SELECTIVE_TERM)}&pageLimit=20`,
    targeted: true,
  },
  {
    name: 'task list, one-day range (~200 matches)',
    path: (rows) =>
      `/api/diary/production?from_date=${middleDay(rows)}&to_date=${middleDay(rows)}&pageLimit=20`,
    targeted: true,
  },
];

const label = (rows: number) => (rows >= 1_000_000 ? `${rows / 1_000_000} M` : `${rows / 1000} k`);

export async function benchGrowth(dialect: DialectName, settings: Settings): Promise<Figure[]> {
  const reads = READS.filter((r) => settings.wanted(r.name));
  if (reads.length === 0) return [];
  const figures: Figure[] = [];
  const deployment = await deploy(dialect);
  try {
    await deployment.cli([
      'tenant',
      'create',
      '--code',
      'neighbour',
      '--name',
      'Neighbour',
      '--owner',
      'owner',
      '--password',
      'neighbour-pw',
    ]);
    const mine = await tenantIds(deployment.databaseUrl);
    const theirs = await tenantIds(deployment.databaseUrl, 'neighbour');
    // Without the read cache: these figures are how the database's reads scale with the rows, and
    // the same URL asked again would be answered from memory at every size.
    const server = await deployment.api({ READ_CACHE: 'off' });
    const api = await login(server.url);
    const cpu = {
      furrow: () => cpuSeconds(server.child.pid!),
      'load generator': ownCpuSeconds,
      ...(dialect === 'postgres' ? { postgres: postgresCpuSeconds } : {}),
    };
    const handle = openDatabase(deployment.databaseUrl, { maxConnections: 2, timeouts: bulkWorkTimeouts() });
    const baseline = new Map<string, number>();
    let seeded = 0;
    try {
      for (const rows of settings.growthScales) {
        const started = performance.now();
        for (const tenant of [mine, theirs]) {
          await seedCrops(handle.db, tenant.tenantId, seeded, rows);
          await seedTasks(handle.db, tenant.tenantId, tenant.ownerId, seeded, rows);
        }
        await analyzeLikeAutovacuum(handle.db);
        seeded = rows;
        process.stderr.write(
          `bench: ${dialect} growth: ${label(rows)} crops and tasks per tenant in ${Math.round((performance.now() - started) / 1000)} s\n`,
        );
        for (const read of reads) {
          const path = read.path(rows);
          // The client's keep-alive connection sat idle through the seeding (minutes at 1 M rows) and
          // may be closed under the first request: that one is asked again once.
          const sample = await api.call('GET', path).catch(() => api.call('GET', path));
          if (sample.status !== 200 || !Array.isArray(sample.json) || sample.json.length === 0) {
            throw new Error(`${path}: ${sample.status} ${sample.text.slice(0, 300)}`);
          }
          const run = await load({
            urls: [`${server.url}${path}`],
            headers: { authorization: `Bearer ${api.token}` },
            connections: CONNECTIONS,
            durationS: settings.durationS,
            warmupS: settings.warmupS,
            cpu,
          });
          const first = settings.growthScales[0]!;
          if (rows === first) baseline.set(read.name, run.rps);
          const base = baseline.get(read.name) ?? run.rps;
          figures.push({
            section: 'growth',
            dialect,
            name: `${read.name} at ${label(rows)} rows`,
            value: run.rps,
            unit: 'req/s',
            p99Ms: run.p99Ms,
            ...(rows === first
              ? {}
              : {
                  baseline: { name: `at ${label(first)}`, value: base },
                  ratio: base / run.rps,
                  ...(read.targeted && rows === 1_000_000 ? { target: { slowdownAtMost: 2 } } : {}),
                }),
            cpu: run.cpu,
          });
        }
      }
    } finally {
      await handle.close();
    }
  } finally {
    await deployment.close();
  }
  return figures;
}
