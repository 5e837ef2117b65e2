import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pooledRandomBytes, randomBase62 } from './ids.js';

describe('random ids', () => {
  it('gives pooled bytes once each, across refills of the pool, and keeps what it gave', () => {
    const given = Array.from({ length: 3000 }, () => pooledRandomBytes(12));
    const first = Buffer.from(given[0]!);
    for (const bytes of given) assert.equal(bytes.length, 12);
    // 36,000 bytes: the 4 KB pool was filled again several times, and no IV came out twice.
    assert.equal(new Set(given.map((b) => b.toString('hex'))).size, given.length);
    assert.deepEqual(given[0], first, 'a refill does not touch bytes already given');
    const zeros = given.filter((b) => b.every((byte) => byte === 0)).length;
    assert.equal(zeros, 0);
    assert.equal(pooledRandomBytes(10_000).length, 10_000, 'more than the pool, straight from the system');
  });

  it('makes base62 strings of the length asked, over the whole alphabet', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const id = randomBase62();
      assert.match(id, /^[0-9A-Za-z]{22}$/);
      for (const c of id) seen.add(c);
    }
    assert.equal(seen.size, 62);
    assert.equal(randomBase62(6).length, 6);
  });
});
