// The machine codes of error answers: each has one status, every AppError the sources build has a
// code of its own message, and docs/errors.md explains every code.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AppError, CODED_MESSAGES, ERROR_CODE_NAMES, ERROR_CODES, errorCodeOf } from './errors.js';
import { isMessageKey } from './i18n.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/errors.md', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('error codes', () => {
  it('names codes in snake_case, each answered with a 4xx or 5xx status', () => {
    for (const code of ERROR_CODE_NAMES) {
      assert.match(code, /^[a-z]+(_[a-z]+)*$/);
      assert.ok(ERROR_CODES[code] >= 400 && ERROR_CODES[code] < 600, code);
    }
  });

  it("gives an error its message's code, or its status's when the message has none", () => {
    assert.equal(new AppError('places.farm_in_use', 409).code, 'farm_in_use');
    assert.equal(new AppError('auth.owner_only', 403).code, 'owner_only');
    assert.equal(new AppError('http.route_not_found', 404).code, 'not_found');
    assert.equal(new AppError('http.content_type_missing', 415).code, 'unsupported_media_type');
    assert.equal(new AppError('db.unavailable', 503).code, 'database_unavailable');
    // A message without a code of its own, or thrown with another status, gets the status's code.
    assert.equal(new AppError('field.invalid', 422).code, 'validation_failed');
    assert.equal(new AppError('places.farm_in_use', 422).code, 'validation_failed');
    assert.equal(errorCodeOf('no.such.key', 412), 'precondition_failed');
    assert.equal(errorCodeOf('no.such.key', 418), 'bad_request');
    assert.equal(errorCodeOf('no.such.key', 502), 'internal_error');
  });

  it('has a code of its own for every message an AppError of the sources is built with', () => {
    const thrown = new Set<string>();
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\b(?:new AppError|conflict|forbidden)\(\s*'([\w.]+)'/g)) {
        thrown.add(match[1] as string);
      }
    }
    assert.ok(thrown.size >= 10, [...thrown].join(', '));
    for (const key of thrown) {
      assert.ok(isMessageKey(key), `${key} is a catalogue key`);
      assert.ok(CODED_MESSAGES.includes(key), `${key} has a code in errors.ts`);
    }
  });

  it('explains every code in docs/errors.md with its status', () => {
    const docs = readFileSync(DOCS, 'utf8');
    const rows = new Map(
      [...docs.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1] as string, Number(m[2])]),
    );
    for (const code of ERROR_CODE_NAMES) {
      assert.equal(rows.get(code), ERROR_CODES[code], `docs/errors.md has a row for ${code}`);
    }
    assert.deepEqual(
      [...rows.keys()].sort(),
      [...ERROR_CODE_NAMES].sort(),
      'no row for a code that does not exist',
    );
  });
});
