// Entity tags and their comparison (RFC 9110 §8.8.3.2, §13.1.1, §13.1.2), without a database.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { entityTag, ifMatchHolds, noneMatchHits, parseEntityTags } from './etag.js';

it('makes a strong tag from the presented record: equal records, equal tags', () => {
  const tag = entityTag({ id: 1, name: 'Tomato', price: 120 });
  assert.match(tag, /^"[A-Za-z0-9_-]{27}"$/);
  assert.equal(entityTag({ id: 1, name: 'Tomato', price: 120 }), tag);
  assert.notEqual(entityTag({ id: 1, name: 'Tomato', price: 121 }), tag);
  assert.notEqual(entityTag({ id: 2, name: 'Tomato', price: 120 }), tag);
  assert.equal(typeof entityTag({ big: 10n }), 'string');
});

it('reads "*", lists, weak tags, and ignores what is not an entity tag', () => {
  assert.equal(parseEntityTags(' * '), '*');
  assert.deepEqual(parseEntityTags('"a", W/"b" ,"c"'), [
    { weak: false, opaque: '"a"' },
    { weak: true, opaque: '"b"' },
    { weak: false, opaque: '"c"' },
  ]);
  assert.deepEqual(parseEntityTags(['"a"', '"b"']), [
    { weak: false, opaque: '"a"' },
    { weak: false, opaque: '"b"' },
  ]);
  assert.deepEqual(parseEntityTags('abc'), []);
  assert.deepEqual(parseEntityTags(undefined), []);
});

it('compares weakly for If-None-Match and strongly for If-Match', () => {
  const tag = entityTag({ id: 1 });
  assert.equal(noneMatchHits(tag, tag), true);
  assert.equal(noneMatchHits(`W/${tag}`, tag), true);
  assert.equal(noneMatchHits('*', tag), true);
  assert.equal(noneMatchHits('"x"', tag), false);
  assert.equal(ifMatchHolds(tag, tag), true);
  assert.equal(ifMatchHolds(`"x", ${tag}`, tag), true);
  assert.equal(ifMatchHolds('*', tag), true);
  assert.equal(ifMatchHolds(`W/${tag}`, tag), false);
  assert.equal(ifMatchHolds(tag.slice(1, -1), tag), false);
  assert.equal(ifMatchHolds('', tag), false);
});
