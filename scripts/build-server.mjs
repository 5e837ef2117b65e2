// Compiles the service (src/, tests left out) into dist/ with tsc, and records which sources it was
// built from. `npm install` runs it (prepare); bin/furrow.js runs dist/ only while it matches the
// sources exactly, and the TypeScript sources through tsx otherwise, so a stale build never runs.
// Without TypeScript (an install that left out devDependencies) it explains and skips.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { sourceDigest } from '../bin/source-digest.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  process.stderr.write(
    'build-server: TypeScript is not installed (devDependencies left out?); furrow runs its sources through tsx.\n',
  );
  process.exit(process.argv.includes('--if-possible') ? 0 : 1);
}

rmSync(`${root}dist`, { recursive: true, force: true });
const digest = sourceDigest(root);
const result = spawnSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], { stdio: 'inherit' });
if (result.status !== 0) {
  process.stderr.write('build-server: tsc failed; furrow runs its sources through tsx until it builds.\n');
  process.exit(process.argv.includes('--if-possible') ? 0 : 1);
}
writeFileSync(`${root}dist/.source-digest`, `${digest}\n`);
process.stdout.write('build-server: the service is compiled into dist/\n');
