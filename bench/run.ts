// Furrow's benchmarks: every figure is a ratio against a baseline measured in the same run on the
// same machine. Writes bench/results/latest.json and prints the Markdown tables.
//
//   npm run bench:quick                  SQLite, short measurements (under 2 minutes)
//   npm run bench                        SQLite and PostgreSQL, longer measurements, growth to 1 M rows
//   npm run bench -- --only=deliveries   sections (api, growth, series, deliveries, scale-out, ingestion,
//                                        lorawan)
//                                        or words of figure names ("crop detail", "search", "latency")
//   npm run bench -- --dialect=postgres  one database only
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { DialectName } from '../src/platform/db/types.js';
import { REPO_ROOT } from '../test/support/processes.js';
import { benchApi } from './api.js';
import { benchDeliveries } from './deliveries.js';
import { type Figure, markdown, met, type Section, type Settings } from './figures.js';
import { benchGrowth } from './growth.js';
import { ensureCompiled } from './lib/furrow.js';
import { benchLorawan } from './lorawan.js';
import { benchScaleOut } from './scaleout.js';
import { benchSeries } from './series.js';

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = args.includes('--quick');
const only = (option('only') ?? '')
  .split(',')
  .map((s) => s.trim().toLowerCase())
  .filter(Boolean);
const dialects: DialectName[] = option('dialect')
  ? [option('dialect') as DialectName]
  : quick
    ? ['sqlite']
    : ['sqlite', 'postgres'];
for (const d of dialects)
  if (d !== 'sqlite' && d !== 'postgres') throw new Error(`--dialect: sqlite or postgres, not ${d}`);

const SECTIONS: Section[] = [
  'api',
  'ingestion',
  'lorawan',
  'growth',
  'series',
  'deliveries',
  'scale-out',
  'memory',
];

/** Settings for one section: every figure of a section named in --only, else those whose name matches. */
function settingsFor(section: Section): Settings | undefined {
  const whole = only.length === 0 || only.includes(section);
  const words = only.filter((w) => !SECTIONS.includes(w as Section));
  // Ingestion is measured on the API figures' server.
  if (section === 'api' && only.includes('ingestion')) words.push('iot readings');
  if (!whole && words.length === 0) return undefined;
  return {
    quick,
    durationS: quick ? 2 : 10,
    warmupS: quick ? 0.5 : 2,
    rounds: quick ? 1 : 2,
    apiRows: quick ? 1000 : 5000,
    growthScales: quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000],
    backlogEvents: quick ? 1000 : 4000,
    latencyS: quick ? 3 : 10,
    wanted: (name) => whole || words.some((w) => name.toLowerCase().includes(w)),
  };
}

async function main(): Promise<number> {
  ensureCompiled();
  const started = performance.now();
  const figures: Figure[] = [];
  const failures: { section: Section; dialect?: DialectName; error: string }[] = [];
  const save = () => {
    const result = {
      date: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      node: process.version,
      cpus: cpus().length,
      seconds: Math.round((performance.now() - started) / 1000),
      figures: figures.map((f) => ({ ...f, met: met(f) })),
      failures,
    };
    const dir = join(import.meta.dirname, 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  };
  // A section that fails is reported and the others still run; the results so far are saved
  // after each section.
  const step = async (
    section: Section,
    dialect: DialectName | undefined,
    run: (settings: Settings) => Promise<Figure[]>,
  ) => {
    const settings = settingsFor(section);
    if (!settings) return;
    const t = performance.now();
    try {
      const produced = await run(settings);
      figures.push(...produced);
      if (produced.length > 0) {
        process.stderr.write(
          `bench: ${section}${dialect ? ` (${dialect})` : ''} done in ${Math.round((performance.now() - t) / 1000)} s\n`,
        );
      }
    } catch (err) {
      // Paths of the stack relative to the repository: the results are committed.
      const error = ((err as Error).stack ?? String(err)).replaceAll(REPO_ROOT, '');
      failures.push({ section, ...(dialect ? { dialect } : {}), error });
      process.stderr.write(`bench: ${section}${dialect ? ` (${dialect})` : ''} failed: ${error}\n`);
    }
    save();
  };
  for (const dialect of dialects) {
    // Ingestion and the API process's memory are measured with the API figures.
    await step('api', dialect, (s) => benchApi(dialect, s));
    await step('lorawan', dialect, (s) => benchLorawan(dialect, s));
    await step('growth', dialect, (s) => benchGrowth(dialect, s));
    await step('series', dialect, (s) => benchSeries(dialect, s));
    await step('deliveries', dialect, (s) => benchDeliveries(dialect, s));
  }
  if (dialects.includes('postgres')) await step('scale-out', 'postgres', (s) => benchScaleOut(s));

  const result = save();
  const missed = figures.filter((f) => met(f) === false).length;
  process.stdout.write(
    `${markdown(figures)}\n\n${result.mode} run, Node ${process.version}, ${result.cpus} cores, ${result.seconds} s; ` +
      `${figures.filter((f) => met(f) !== undefined).length - missed} targets met, ${missed} not met` +
      `${failures.length > 0 ? `, ${failures.length} section(s) failed (above)` : ''}. Written to bench/results/latest.json.\n`,
  );
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
