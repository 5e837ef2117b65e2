import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  customHeaderProblems,
  parseCustomHeaders,
  REDACTED_VALUE,
  redactCustomHeaders,
  storedCustomHeaders,
} from './custom-headers.js';

const fieldsOf = (headers: Record<string, string>) =>
  customHeaderProblems(headers).map((p) => [p.field, p.message]);

describe('custom webhook headers', () => {
  it('accepts token names and printable one-line values', () => {
    assert.deepEqual(
      fieldsOf({
        Authorization: 'Bearer x',
        "X-Odd!#$%&'*+.^_`|~": 'a b\tc',
        'X-Empty': '',
        'x-v': 'v'.repeat(1024),
      }),
      [],
    );
  });

  it('refuses, ignoring case, the names Furrow or HTTP own, and names each header', () => {
    for (const name of ['webhook-id', 'WEBHOOK-SIGNATURE', 'X-Service-Signature-Previous', 'user-agent']) {
      assert.deepEqual(fieldsOf({ [name]: 'x' }), [[`headers.${name}`, 'webhook.header.reserved_own']]);
    }
    for (const name of [
      'Content-Length',
      'content-type',
      'Host',
      'Connection',
      'Keep-Alive',
      'Transfer-Encoding',
      'TE',
      'Trailer',
      'Upgrade',
      'Proxy-Authorization',
      'Expect',
    ]) {
      assert.deepEqual(fieldsOf({ [name]: 'x' }), [[`headers.${name}`, 'webhook.header.reserved_http']]);
    }
  });

  it('refuses bad names, bad values, duplicates and more than 10', () => {
    assert.deepEqual(fieldsOf({ 'X Space': 'x', 'X:colon': 'x', Ünï: 'x', '': 'x' }), [
      ['headers.X Space', 'webhook.header.name_invalid'],
      ['headers.X:colon', 'webhook.header.name_invalid'],
      ['headers.Ünï', 'webhook.header.name_invalid'],
      ['headers.', 'webhook.header.name_invalid'],
    ]);
    assert.deepEqual(fieldsOf({ 'X-A': 'a\nb', 'X-B': 'a\rb', 'X-C': 'nul\u0000', 'X-D': 'é' }), [
      ['headers.X-A', 'webhook.header.value_invalid'],
      ['headers.X-B', 'webhook.header.value_invalid'],
      ['headers.X-C', 'webhook.header.value_invalid'],
      ['headers.X-D', 'webhook.header.value_invalid'],
    ]);
    assert.deepEqual(fieldsOf({ 'X-Long': 'v'.repeat(1025) }), [
      ['headers.X-Long', 'webhook.header.value_too_long'],
    ]);
    assert.deepEqual(fieldsOf({ 'X-Token': '1', 'x-token': '2' }), [
      ['headers.x-token', 'webhook.header.duplicate'],
    ]);
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-${i}`, 'v']));
    assert.deepEqual(fieldsOf(eleven), [['headers', 'webhook.header.too_many']]);
  });

  it('never repeats a value in a problem', () => {
    const problems = customHeaderProblems({ 'X-Token': 'hunter2\n', 'Content-Type': 'hunter3' });
    assert.ok(!JSON.stringify(problems).includes('hunter'));
  });

  it('stores none as null, reads back what it stored, and redacts values for the log', () => {
    assert.equal(storedCustomHeaders({}), null);
    assert.equal(storedCustomHeaders(null), null);
    const stored = storedCustomHeaders({ Authorization: 'Bearer x' });
    assert.deepEqual(parseCustomHeaders(stored), { Authorization: 'Bearer x' });
    assert.equal(parseCustomHeaders(null), null);
    assert.equal(parseCustomHeaders('not json'), null);
    assert.deepEqual(
      redactCustomHeaders(
        { Authorization: 'Bearer x', 'User-Agent': 'Furrow' },
        { Authorization: 'Bearer x' },
      ),
      { Authorization: REDACTED_VALUE, 'User-Agent': 'Furrow' },
    );
  });
});
