// Runs every test file (src/**/*.test.ts, test/**/*.test.ts) with node's test runner through tsx.
// Node 20's runner takes no globs, so the files are listed here. Extra arguments are passed on
// (e.g. `npm test -- --test-name-pattern=login`); file paths given as arguments narrow the run.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

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

const args = process.argv.slice(2);
const fileArgs = args.filter((a) => a.endsWith('.test.ts'));
const flagArgs = args.filter((a) => !a.endsWith('.test.ts'));
const files = fileArgs.length > 0 ? fileArgs : ['src', 'test'].flatMap(findTests).sort();
const concurrency = process.env.TEST_CONCURRENCY ?? '2';

const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    ...flagArgs,
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
