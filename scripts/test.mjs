// Runs every test file (src/**/*.test.ts, test/**/*.test.ts), each in its own process under node's
// test runner through tsx, TEST_CONCURRENCY files at a time (default 2), the slowest first.
//
// The database schema is migrated once per run, not once per test database: into a SQLite file that
// every SQLite test database is a copy of, and a PostgreSQL database every PostgreSQL test database
// is created from (`create database … template`). The test processes find them in
// FURROW_TEST_SQLITE_TEMPLATE and FURROW_TEST_PG_TEMPLATE (test/support/databases.ts); a test file run
// on its own migrates its databases itself. Names carry this process's id and random bytes, so runs
// side by side never meet, and the templates, what a killed test process left of its databases and
// the run's temporary folder are removed at the end, also after a failure, Ctrl-C or SIGTERM.
//
// Extra arguments are passed on to every file (e.g. `npm test -- --test-name-pattern=login`); file
// paths given as arguments narrow the run. The exit code is 1 when any file failed.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { buildServiceIfStale, buildWebIfStale } from './test-builds.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FURROW_BIN = join(ROOT, 'bin', 'furrow.js');
const PRELOAD = pathToFileURL(join(ROOT, 'test', 'support', 'preload.mjs')).href;
const PG_ADMIN_URL = process.env.FURROW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Files that take longest (measured on 2 cores), longest first: they start first, so the run does
 * not end waiting for one of them started last. The others follow, the largest first.
 */
const SLOWEST_FIRST = [
  'test/webhook-workers.test.ts',
  'test/cli.test.ts',
  'test/mqtt-workers.test.ts',
  'test/large-pages.test.ts',
  'test/e2e/webhooks-screen.test.ts',
  'test/database-outage.test.ts',
  'test/resources.property.test.ts',
  'src/modules/auth/auth.test.ts',
  'src/modules/webhooks/fairness.test.ts',
  'src/modules/webhooks/delivery.test.ts',
  'test/database-freeze.test.ts',
  'test/resources.test.ts',
  'test/offline-sweeper-process.test.ts',
  'test/sqlite-locked.test.ts',
  'test/e2e/login-alerts.test.ts',
];

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

function inRunOrder(files) {
  const missing = files.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    process.stderr.write(`No such test file: ${missing.join(', ')}\n`);
    process.exit(2);
  }
  const rank = (file) => {
    const i = SLOWEST_FIRST.indexOf(file.replaceAll('\\', '/').replace(/^\.\//, ''));
    return i === -1 ? SLOWEST_FIRST.length : i;
  };
  return files
    .map((file) => ({ file, rank: rank(file), size: statSync(file).size }))
    .sort((a, b) => a.rank - b.rank || b.size - a.size || a.file.localeCompare(b.file))
    .map((f) => f.file);
}

function concurrencyFromEnv() {
  const raw = process.env.TEST_CONCURRENCY;
  if (raw === undefined || raw.trim() === '') return 2;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`TEST_CONCURRENCY must be a whole number of at least 1, not "${raw}"\n`);
    process.exit(2);
  }
  return n;
}

const args = process.argv.slice(2);
const fileArgs = args.filter((a) => a.endsWith('.test.ts'));
const flagArgs = args.filter((a) => !a.endsWith('.test.ts'));
const files = inRunOrder(fileArgs.length > 0 ? fileArgs : ['src', 'test'].flatMap(findTests));
const concurrency = concurrencyFromEnv();

// ---- this run's names and the signals that end it early

const runTag = `${process.pid}_${randomBytes(3).toString('hex')}`;
const tempRoot = mkdtempSync(join(tmpdir(), `furrow-run-${runTag}-`));
const sqliteTemplate = join(tempRoot, 'template.db');
const pgTemplate = `furrow_tpl_${runTag}`;
let pgTemplateMade = false;

/** The signal that stopped the run, or undefined. */
let stoppedBy;
const running = new Map();
/** tsc and Vite while they build (in this process's group). */
const buildChildren = new Set();
const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
for (const signal of Object.keys(SIGNAL_NUMBERS)) {
  process.on(signal, () => {
    if (stoppedBy) {
      // A second signal: no more waiting for the test processes to end themselves.
      for (const child of running.keys()) killGroup(child, 'SIGKILL');
      return;
    }
    stoppedBy = signal;
    process.stderr.write(`\n${signal}: stopping the test processes and removing this run's databases…\n`);
    for (const child of running.keys()) killGroup(child, signal);
    for (const child of buildChildren) child.kill(signal);
    setTimeout(() => {
      for (const child of running.keys()) killGroup(child, 'SIGKILL');
    }, 10_000).unref();
  });
}

/** A signal to a test process and everything it started (its own process group). */
function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}

// ---- the templates

/** The environment without this machine's Furrow settings (as test/support/processes.ts). */
function cleanEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(PORT|HOST|DATABASE_|FURROW_|TOKEN_TTL|WEBHOOK_|MQTT_|IOT_|LOG_LEVEL)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

/** `furrow migrate` on a database, as an operator would. */
function furrowMigrate(databaseUrl) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FURROW_BIN, 'migrate'], {
      cwd: tempRoot,
      env: { ...cleanEnv(), DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`furrow migrate exited with ${code}:\n${output}`)),
    );
  });
}

async function adminQuery(text, values = []) {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

async function postgresAnswers() {
  try {
    await adminQuery('select 1');
    return true;
  } catch {
    return false; // the test processes say so, and fail in CI
  }
}

/** The PostgreSQL template: migrated, then closed to connections, so `template` never finds one. */
async function makePgTemplate() {
  await adminQuery(`create database ${pgTemplate}`);
  pgTemplateMade = true;
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${pgTemplate}`;
  await furrowMigrate(url.toString());
  await adminQuery(`alter database ${pgTemplate} with allow_connections false`);
}

async function makeSqliteTemplate() {
  await furrowMigrate(`sqlite:${sqliteTemplate}`);
  // furrow closed it cleanly: everything is in the file itself, which is what the tests copy.
  const wal = `${sqliteTemplate}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) throw new Error(`${wal} was left behind`);
}

async function makeTemplates() {
  const env = { FURROW_TEST_RUN: runTag, FURROW_TEST_TMPDIR: tempRoot };
  const pgUp = await postgresAnswers();
  await Promise.all([makeSqliteTemplate(), pgUp ? makePgTemplate() : undefined]);
  env.FURROW_TEST_SQLITE_TEMPLATE = sqliteTemplate;
  if (pgUp) env.FURROW_TEST_PG_TEMPLATE = pgTemplate;
  return env;
}

/** Removes the templates, this run's test databases a killed process left, and the temporary folder. */
async function cleanUp() {
  rmSync(tempRoot, { recursive: true, force: true });
  if (!pgTemplateMade) return;
  try {
    const left = await adminQuery(
      'select datname from pg_database where datname = $1 or starts_with(datname, $2)',
      [pgTemplate, `furrow_test_${runTag}_`],
    );
    for (const { datname } of left) await adminQuery(`drop database if exists "${datname}" with (force)`);
  } catch (err) {
    process.stderr.write(`Could not drop this run's PostgreSQL databases (${pgTemplate}…): ${err.message}\n`);
  }
}

// ---- the test files

async function runFile(file, env) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', PRELOAD, '--import', 'tsx', '--test-reporter=spec', ...flagArgs, file],
    // Its own process group: a signal reaches it with the servers and browsers it started.
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  running.set(child, file);
  const closed = new Promise((resolve) => child.on('close', resolve));
  const output = [];
  child.stdout.on('data', (d) => output.push(d));
  child.stderr.on('data', (d) => output.push(d));
  const exit = await new Promise((resolve) => {
    child.on('error', (err) => {
      output.push(Buffer.from(`could not start: ${err.message}\n`));
      resolve({ code: null, signal: 'error' });
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  // What it started gets a moment to end (a tool winding down), then ends with it.
  for (let i = 0; i < 20 && killGroup(child, 0); i++) await sleep(100);
  if (killGroup(child, 'SIGKILL') && stoppedBy === undefined) {
    output.push(Buffer.from(`(${file} left processes running; they were killed)\n`));
  }
  await closed;
  running.delete(child);
  return {
    file,
    ok: exit.code === 0,
    exit,
    seconds: (performance.now() - started) / 1000,
    output: Buffer.concat(output),
  };
}

/** The builds a file waits for: furrow processes run dist/ once it is current; browsers need web/dist. */
function buildsWanted(file) {
  const text = readFileSync(file, 'utf8');
  const wanted = [];
  if (/\b(runFurrow|startFurrow|startFurrowWorker|migrateAndCreateTenant)\b/.test(text))
    wanted.push('service');
  if (/\b(ensureWebBuilt|useScreenSuite)\b/.test(text)) wanted.push('web');
  return wanted;
}

/** Starts the builds some file wants; each answers when done (it never fails: a file then says why). */
function startBuilds(queue) {
  const builds = {};
  const announce = (what) => process.stdout.write(`npm test: ${what}\n`);
  const wanted = new Set(queue.flatMap((q) => q.wants));
  if (wanted.has('service')) {
    builds.service = buildServiceIfStale(ROOT, runTag, buildChildren).then(announce, (err) =>
      announce(`dist/ not built: ${err.message}`),
    );
  }
  if (wanted.has('web')) {
    builds.web = buildWebIfStale(ROOT, buildChildren).then(announce, (err) =>
      announce(`web/dist not built: ${err.message}`),
    );
  }
  const done = new Set();
  for (const [name, promise] of Object.entries(builds)) promise.then(() => done.add(name));
  return { builds, done };
}

async function runAll(env, queue, { builds, done }) {
  const results = [];
  const worker = async () => {
    while (queue.length > 0 && !stoppedBy) {
      // The first file in run order whose builds are done; else wait for a build.
      const next = queue.findIndex((q) => q.wants.every((w) => done.has(w)));
      if (next === -1) {
        await Promise.race(Object.entries(builds).flatMap(([name, p]) => (done.has(name) ? [] : [p])));
        continue;
      }
      const [{ file }] = queue.splice(next, 1);
      const result = await runFile(file, env);
      results.push(result);
      const status = result.ok
        ? 'passed'
        : `FAILED (${result.exit?.signal ?? `exit code ${result.exit?.code}`})`;
      process.stdout.write(`\n━━ ${file}: ${status} in ${result.seconds.toFixed(1)} s\n`);
      process.stdout.write(result.output);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  return results;
}

function report(results, seconds) {
  const failed = results.filter((r) => !r.ok);
  const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 10);
  const lines = ['', 'Slowest files:'];
  for (const r of slowest) lines.push(`  ${r.seconds.toFixed(1).padStart(6)} s  ${r.file}`);
  lines.push(
    '',
    `${results.length} of ${files.length} files in ${seconds.toFixed(1)} s, ${concurrency} at a time; ` +
      (failed.length === 0 ? 'all passed' : `${failed.length} failed:`),
  );
  for (const r of failed) lines.push(`  ✖ ${r.file}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return failed.length === 0 && results.length === files.length;
}

const runStarted = performance.now();
const queue = files.map((file) => ({ file, wants: buildsWanted(file) }));
const builds = startBuilds(queue);
let ok = false;
try {
  const env = await makeTemplates();
  if (!stoppedBy) ok = report(await runAll(env, queue, builds), (performance.now() - runStarted) / 1000);
} catch (err) {
  process.stderr.write(`npm test: ${err.stack ?? err}\n`);
} finally {
  // A build stopped halfway removes what it wrote before the run ends.
  for (const child of buildChildren) child.kill('SIGTERM');
  await Promise.allSettled(Object.values(builds.builds));
  await cleanUp();
}
if (stoppedBy) process.exit(128 + SIGNAL_NUMBERS[stoppedBy]);
process.exitCode = ok ? 0 : 1;
