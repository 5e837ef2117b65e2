import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filtersOverlap, topicFilterProblem, topicMatches } from './mqtt-topics.js';

describe('MQTT topic filters', () => {
  it('accepts wildcards that fill whole levels, "#" last', () => {
    for (const ok of ['#', '+', 'a/b', 'a/+/c', 'a/#', '+/+/#', '/a', 'a//b', '$SYS/#'])
      assert.equal(topicFilterProblem(ok), null, ok);
    for (const bad of ['a/#/b', 'a+', 'a/b+/c', '#/a', 'a#', 'a/b#'])
      assert.equal(topicFilterProblem(bad), 'wildcard', bad);
    assert.equal(topicFilterProblem(''), 'empty');
  });

  it('matches topics as a broker does', () => {
    const cases: [string, string, boolean][] = [
      ['a/+/c', 'a/b/c', true],
      ['a/+/c', 'a/b/d', false],
      ['a/+', 'a/b/c', false],
      ['a/#', 'a', true],
      ['a/#', 'a/b/c', true],
      ['#', 'anything/at/all', true],
      ['#', '$SYS/broker', false],
      ['+/x', '$SYS/x', false],
      ['a/b', 'a/b', true],
      ['a/b', 'a/b/', false],
    ];
    for (const [filter, topic, expected] of cases)
      assert.equal(topicMatches(filter, topic), expected, `${filter} ${topic}`);
  });

  it('tells filters that some topic matches both', () => {
    const cases: [string, string, boolean][] = [
      ['a/#', 'a/b', true],
      ['a/#', 'a', true],
      ['a/+/c', 'a/b/+', true],
      ['a/+', 'a/b/c', false],
      ['a/b', 'a/c', false],
      ['a', 'a/b', false],
      ['+', '#', true],
      ['a/b', 'a/b', true],
      ['x/+/y', 'x/z', false],
    ];
    for (const [a, b, expected] of cases) {
      assert.equal(filtersOverlap(a, b), expected, `${a} ${b}`);
      assert.equal(filtersOverlap(b, a), expected, `${b} ${a}`);
    }
  });
});
