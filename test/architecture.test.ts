// The layout rules of docs/architecture.md, read off the sources so they cannot drift: a rule
// broken here is a rule a newcomer would trip over.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const MAX_LINES = 400;

interface SourceFile {
  /** Path from the repository root, with forward slashes. */
  path: string;
  text: string;
  /** Resolved import targets, from the repository root, `.ts` instead of `.js`. */
  imports: string[];
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const posix = (path: string) => path.split(sep).join('/');

function readSource(path: string): SourceFile {
  const text = readFileSync(path, 'utf8');
  const imports: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = resolve(dirname(path), match[1] as string).replace(/\.js$/, '.ts');
    imports.push(posix(relative(root, target)));
  }
  return { path: posix(relative(root, path)), text, imports };
}

const isTest = (path: string) => path.endsWith('.test.ts');
const isMigration = (path: string) => path.startsWith('src/platform/db/migrations/');
const files = walk(src)
  .filter((path) => path.endsWith('.ts') && !isTest(path))
  .map(readSource);

/** The feature a file belongs to (`src/modules/<feature>/...`), if any. */
const moduleOf = (path: string) => /^src\/modules\/([^/]+)\//.exec(path)?.[1];

describe('layout rules', () => {
  it('reads the sources it checks', () => {
    assert.ok(files.length > 50, `only ${files.length} source files found under ${src}`);
    assert.ok(files.some((file) => moduleOf(file.path) === 'webhooks'));
  });

  it('has no pair of modules importing each other', () => {
    const edges = new Set<string>();
    for (const file of files) {
      const from = moduleOf(file.path);
      if (!from) continue;
      for (const target of file.imports) {
        const to = moduleOf(target);
        if (to && to !== from) edges.add(`${from}->${to}`);
      }
    }
    const mutual = [...edges].filter((edge) => {
      const [from, to] = edge.split('->');
      return (from as string) < (to as string) && edges.has(`${to}->${from}`);
    });
    assert.deepEqual(mutual, [], 'these module pairs import each other');
  });

  it('keeps platform free of modules', () => {
    const leaks = files
      .filter((file) => file.path.startsWith('src/platform/'))
      .flatMap((file) =>
        file.imports.filter((target) => moduleOf(target)).map((target) => `${file.path} imports ${target}`),
      );
    assert.deepEqual(leaks, []);
  });

  it('lets routes call services, never repositories', () => {
    const leaks = files
      .filter((file) => file.path.endsWith('.routes.ts'))
      .flatMap((file) =>
        file.imports
          .filter((target) => target.endsWith('.repository.ts'))
          .map((target) => `${file.path} imports ${target}`),
      );
    assert.deepEqual(leaks, []);
  });

  it('tells the dialect in one place (migrations keep their own, frozen in time)', () => {
    const checks = files
      .filter((file) => !isMigration(file.path) && /instanceof\s+(Postgres|Sqlite)Adapter/.test(file.text))
      .map((file) => file.path);
    assert.deepEqual(checks, ['src/platform/db/database.ts']);
  });

  it(`keeps every hand-written source file within ${MAX_LINES} lines (migrations aside)`, () => {
    const long = files
      .filter((file) => !isMigration(file.path))
      .map((file) => ({ path: file.path, lines: file.text.split('\n').length }))
      .filter((file) => file.lines > MAX_LINES)
      .map((file) => `${file.path}: ${file.lines} lines`);
    assert.deepEqual(long, []);
  });
});
