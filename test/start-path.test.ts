// bin/furrow.js runs the compiled service only while dist/ was built from the current sources.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { sourceDigest } from '../bin/source-digest.js';
import { REPO_ROOT } from './support/processes.js';

let project: string;

/** Which entry point `furrow` ran in the scratch project. */
const run = () => {
  const result = spawnSync(process.execPath, [join(project, 'bin', 'furrow.js')], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
};

before(() => {
  // A scratch project with the real bin/ and node_modules, and entry points that say which ran.
  project = mkdtempSync(join(tmpdir(), 'furrow-start-'));
  cpSync(join(REPO_ROOT, 'bin'), join(project, 'bin'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(project, 'node_modules'));
  writeFileSync(join(project, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(project, 'tsconfig.json'), '{}\n');
  writeFileSync(join(project, 'tsconfig.build.json'), '{}\n');
  mkdirSync(join(project, 'src'));
  mkdirSync(join(project, 'dist'));
  const entry = (said: string) =>
    `export async function main(): Promise<number> { process.stdout.write('${said}'); return 0; }\n`;
  writeFileSync(join(project, 'src', 'main.ts'), entry('sources'));
  writeFileSync(join(project, 'src', 'main.test.ts'), '// a test file is not part of the build\n');
  writeFileSync(join(project, 'dist', 'main.js'), entry('compiled').replace(': Promise<number>', ''));
});
after(() => rmSync(project, { recursive: true, force: true }));

it('runs the sources through tsx when there is no build', () => {
  assert.equal(run(), 'sources');
});

it('runs dist/ when it was built from the current sources, and the sources once one changes', () => {
  writeFileSync(join(project, 'dist', '.source-digest'), `${sourceDigest(`${project}/`)}\n`);
  assert.equal(run(), 'compiled');
  // Tests are not part of the build: changing one keeps the build current.
  writeFileSync(join(project, 'src', 'main.test.ts'), '// changed\n');
  assert.equal(run(), 'compiled');
  writeFileSync(join(project, 'src', 'extra.ts'), 'export const added = 1;\n');
  assert.equal(run(), 'sources');
});

it('npm start and the furrow command start Node with the same flags, which the tests use too', async () => {
  const { readFileSync } = await import('node:fs');
  const { SERVE_NODE_FLAGS } = await import('./support/processes.js');
  const shebang = readFileSync(join(REPO_ROOT, 'bin', 'furrow.js'), 'utf8').split('\n')[0]!;
  assert.equal(shebang, `#!/usr/bin/env -S node ${SERVE_NODE_FLAGS.join(' ')}`);
  assert.ok(SERVE_NODE_FLAGS.includes('--max-semi-space-size=4'), SERVE_NODE_FLAGS.join(' '));
  // Node refuses a flag it does not know: these start it.
  const started = spawnSync(process.execPath, [...SERVE_NODE_FLAGS, '-e', '0'], { encoding: 'utf8' });
  assert.equal(started.status, 0, started.stderr);
});

it('furrow serve sets its own V8 flags unless node was started with them, and only for serve', async () => {
  const { serveV8Flags } = await import('../bin/heap.js');
  const ours = serveV8Flags(['serve'], [], '');
  assert.deepEqual(ours, ['--heap-growing-percent=50', '--liftoff-only']);
  assert.deepEqual(serveV8Flags(['migrate'], [], ''), []);
  // A value given on node's command line or in NODE_OPTIONS is kept, in either spelling.
  assert.deepEqual(serveV8Flags(['serve', '--role', 'api'], ['--heap_growing_percent=80'], ''), [
    '--liftoff-only',
  ]);
  assert.deepEqual(serveV8Flags(['serve'], [], '--max-old-space-size=512 --no-liftoff-only'), [
    '--heap-growing-percent=50',
  ]);
  assert.deepEqual(serveV8Flags(['serve'], ['--liftoff_only'], '--heap-growing-percent=30'), []);
  // Node refuses a V8 flag it does not know on its command line (v8.setFlagsFromString would not say).
  const started = spawnSync(process.execPath, [...ours, '-e', '0'], { encoding: 'utf8' });
  assert.equal(started.status, 0, started.stderr);
});
