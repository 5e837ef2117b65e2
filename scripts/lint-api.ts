// `npm run lint:api`: the server's /openapi.json linted by Redocly with its recommended rules, as
// test/openapi-contract.test.ts does. Errors fail; the 2 known warnings are explained in the README.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverOpenApi } from './api-types.js';

const dir = mkdtempSync(join(tmpdir(), 'furrow-lint-api-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(await serverOpenApi(), null, 2));
  const redocly = fileURLToPath(new URL('../node_modules/.bin/redocly', import.meta.url));
  const result = spawnSync(redocly, ['lint', file, '--format=stylish'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
