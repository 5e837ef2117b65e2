// Password hashing: the dummy hash of unknown users costs what a real check costs, and hashes queued
// behind the concurrency limit all get their turn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DUMMY_HASH, hashPassword, MAX_CONCURRENT_HASHES, verifyPassword } from './password.js';

/** The algorithm and parameters of a hash: `$argon2id$v=19$m=19456,t=2,p=1`. */
const parametersOf = (hash: string) => hash.split('$').slice(0, 4).join('$');

describe('password hashes', () => {
  it('verifies the right password only, and never a user without a hash', async () => {
    const hash = await hashPassword('correct horse');
    assert.equal(await verifyPassword(hash, 'correct horse'), true);
    assert.equal(await verifyPassword(hash, 'wrong horse'), false);
    assert.equal(await verifyPassword(undefined, 'correct horse'), false);
    assert.equal(await verifyPassword(undefined, 'furrow-timing-equaliser'), false);
  });

  it('keeps the dummy hash at the parameters of real hashes, so both cost the same', async () => {
    assert.equal(parametersOf(DUMMY_HASH), parametersOf(await hashPassword('any')));
  });

  it('runs every one of more hashes than may run at once', async () => {
    const passwords = Array.from({ length: MAX_CONCURRENT_HASHES * 3 }, (_, i) => `password ${i}`);
    const hashes = await Promise.all(passwords.map(hashPassword));
    const checks = await Promise.all(hashes.map((hash, i) => verifyPassword(hash, passwords[i]!)));
    assert.deepEqual(
      checks,
      passwords.map(() => true),
    );
  });
});
