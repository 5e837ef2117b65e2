// `npm install` on every Node version package.json supports prints no engine warning: each
// installed package (platform-specific optional builds aside) accepts the lowest supported Node
// of each major line we claim (20.19 and 22.13, the floors of Vite and its native builds) and the Node running
// the tests.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import semver from 'semver';

const ROOT = join(import.meta.dirname, '..');

interface LockPackage {
  engines?: { node?: string } | string[];
  optional?: boolean;
  os?: string[];
}

it('every installed package accepts the Node versions package.json claims', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockPackage>;
  };
  const claimed: string = manifest.engines.node;
  const versions = ['20.19.0', '22.13.0', process.versions.node].filter((v) => semver.satisfies(v, claimed));
  assert.ok(versions.includes(process.versions.node), `the tests run on a claimed Node (${claimed})`);
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
    if (!path || !range || (entry.optional && entry.os)) continue;
    for (const version of versions) {
      if (!semver.satisfies(version, range)) refused.push(`${path} needs node ${range}, not ${version}`);
    }
  }
  assert.deepEqual(refused, []);
});
