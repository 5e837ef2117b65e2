// The version of this Furrow: package.json's, read once (the file sits two folders up from
// both src/cli/ and dist/cli/).
import { readFileSync } from 'node:fs';

let known: string | undefined;

export function version(): string {
  known ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return known;
}
