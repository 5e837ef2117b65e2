// The builds a test run wants current, made once by scripts/test.mjs at its start instead of by the
// test processes: the compiled service (dist/) and the Webhooks screen (web/dist/).
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { sourceDigest } from '../bin/source-digest.js';

const require = createRequire(import.meta.url);

/** Runs a node script to its end; answers its exit code and output. */
function runNode(args, cwd, children) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', (err) => {
      output += err.message;
    });
    child.on('close', (code) => {
      children.delete(child);
      resolve({ code, output });
    });
  });
}

/**
 * bin/furrow.js runs dist/ while it was built from the current sources, and the sources through tsx
 * otherwise, which costs every furrow process a test starts about a second more CPU time. When dist/
 * is missing or stale this compiles it, as `npm install` does (scripts/build-server.mjs), into a
 * folder beside it that then takes its place, so no furrow process ever sees half a build. Answers
 * what it did, in a few words.
 */
export async function buildServiceIfStale(root, tag, children) {
  const dist = join(root, 'dist');
  const digest = sourceDigest(root);
  const stamp = join(dist, '.source-digest');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest) return 'dist/ is current';
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc');
  } catch {
    return 'no TypeScript: the furrow processes run the sources';
  }
  // test-output/ is ignored by git and Biome, and on the file system of dist/ (a rename, not a copy).
  const scratch = join(root, 'test-output', `dist-${tag}`);
  const old = join(root, 'test-output', `dist-old-${tag}`);
  mkdirSync(join(root, 'test-output'), { recursive: true });
  try {
    const built = await runNode(
      [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', scratch],
      root,
      children,
    );
    if (built.code !== 0) {
      const first = built.output.split('\n').find((line) => line.trim() !== '') ?? `exit code ${built.code}`;
      return `tsc failed (${first.trim()}): the furrow processes run the sources`;
    }
    writeFileSync(join(scratch, '.source-digest'), `${digest}\n`);
    if (existsSync(dist)) renameSync(dist, old);
    renameSync(scratch, dist);
    return 'compiled dist/ from the current sources';
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}

/** The newest modification time of the screen's sources (web/ without dist/), as test/support/browser.ts. */
function newestWebSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestWebSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The browser tests serve web/dist and build it when it is missing or stale: two of them doing so at
 * once would each empty the folder the other serves. Built here first, they find it current.
 */
export async function buildWebIfStale(root, children) {
  const index = join(root, 'web', 'dist', 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestWebSource(join(root, 'web'))) {
    return 'web/dist is current';
  }
  const built = await runNode([join(root, 'scripts', 'build-web.mjs')], root, children);
  return built.code === 0
    ? 'built web/dist'
    : `building web/dist failed (the browser tests say why):\n${built.output}`;
}
