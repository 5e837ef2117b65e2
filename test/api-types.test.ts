// The farm app's API types (web/src/api/schema.d.ts) are generated from the server's OpenAPI
// document; a server change that the committed file does not reflect fails here. Fix: `npm run api:types`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { API_TYPES_PATH, generateApiTypes } from '../scripts/api-types.js';

it('web/src/api/schema.d.ts is what the server declares now (else run "npm run api:types")', async () => {
  const committed = readFileSync(API_TYPES_PATH, 'utf8');
  const fresh = await generateApiTypes();
  if (committed !== fresh) {
    const a = committed.split('\n');
    const b = fresh.split('\n');
    const line = a.findIndex((text, i) => text !== b[i]);
    assert.fail(
      `web/src/api/schema.d.ts is stale from line ${line + 1}: committed ${JSON.stringify(a[line])}, ` +
        `server ${JSON.stringify(b[line])}. Run "npm run api:types" and commit the result.`,
    );
  }
});
