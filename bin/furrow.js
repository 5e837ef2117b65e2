#!/usr/bin/env -S node --max-semi-space-size=4
// The furrow CLI. It runs the compiled service (dist/, built by `npm install` or `npm run build`)
// when that was built from the current sources, and the TypeScript sources through tsx otherwise,
// so a fresh clone needs no build step and an edited source never runs stale.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { serveV8Flags } from './heap.js';
import { sourceDigest } from './source-digest.js';

for (const flag of serveV8Flags(process.argv.slice(2))) setFlagsFromString(flag);

const root = fileURLToPath(new URL('../', import.meta.url));
const stamp = `${root}dist/.source-digest`;
const compiled = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === sourceDigest(root);

let main;
if (compiled) {
  ({ main } = await import('../dist/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
