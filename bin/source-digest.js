// A digest of what the compiled service (dist/) is built from: every source file under src/ but the
// tests, and the TypeScript settings. bin/furrow.js runs dist/ only while the digests agree.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function sourceDigest(root) {
  const hash = createHash('sha256');
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) files.push(path);
    }
  };
  walk(join(root, 'src'));
  files.push(join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json'));
  for (const file of files.sort()) {
    hash.update(file.slice(root.length)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}
