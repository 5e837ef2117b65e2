import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressVectors } from '../../../test/support/vectors.js';
import { AllowList, checkReceivingUrl, nonPublicReason, type Resolver } from './address-guard.js';

const noDns: Resolver = async (host) => {
  throw new Error(`no DNS in this test (${host})`);
};
const none = new AllowList([]);

describe('public-address rule', () => {
  for (const { url, why } of addressVectors.reject) {
    it(`refuses ${url} (${why})`, async () => {
      const resolver: Resolver = async (host) => (host === 'localhost' ? ['127.0.0.1', '::1'] : noDns(host));
      const problem = await checkReceivingUrl(url, none, resolver);
      assert.ok(problem, `${url} was accepted`);
    });
  }

  for (const url of addressVectors.accept) {
    it(`accepts ${url}`, async () => {
      assert.equal(await checkReceivingUrl(url, none, noDns), null);
    });
  }

  it('names the reason', async () => {
    assert.deepEqual(await checkReceivingUrl('http://example.com/hook', none, noDns), {
      key: 'webhook.url.https_required',
      params: {},
    });
    assert.deepEqual(await checkReceivingUrl('https://u:p@example.com/', none, noDns), {
      key: 'webhook.url.credentials',
      params: {},
    });
    assert.deepEqual(await checkReceivingUrl('https://[::7f00:1]/hook', none, noDns), {
      key: 'webhook.url.private_address',
      params: { address: '::7f00:1', reason: 'IPv4-compatible embedding loopback' },
    });
    assert.deepEqual(await checkReceivingUrl('https://2130706433/hook', none, noDns), {
      key: 'webhook.url.private_address',
      params: { address: '127.0.0.1', reason: 'loopback' },
    });
    assert.deepEqual(await checkReceivingUrl('not a url', none, noDns), {
      key: 'webhook.url.invalid',
      params: {},
    });
    assert.deepEqual(await checkReceivingUrl('https://93.184.215.14/a\r\nb', none, noDns), {
      key: 'webhook.url.whitespace',
      params: {},
    });
    assert.deepEqual(await checkReceivingUrl('https://hooks.invalid/x', none, noDns), {
      key: 'webhook.url.unresolvable',
      params: { host: 'hooks.invalid' },
    });
  });

  it('refuses a host when any of its addresses is not public', async () => {
    const resolver: Resolver = async () => ['93.184.215.14', '10.0.0.5'];
    const problem = await checkReceivingUrl('https://mixed.example/hook', none, resolver);
    assert.equal(problem?.params.address, '10.0.0.5');
    assert.equal(
      await checkReceivingUrl('https://ok.example/hook', none, async () => ['93.184.215.14']),
      null,
    );
  });

  it('classifies embedded IPv4 addresses by the address they carry', () => {
    assert.equal(nonPublicReason('::ffff:8.8.8.8'), null);
    assert.equal(nonPublicReason('64:ff9b::808:808'), null);
    assert.equal(nonPublicReason('2002:808:808::1'), null);
    assert.equal(nonPublicReason('::ffff:192.168.1.1'), 'IPv4-mapped embedding private (RFC 1918)');
    assert.equal(nonPublicReason('2001:db8::1'), 'documentation');
    assert.equal(nonPublicReason('2001:0:4136:e378:8000:63bf:3fff:fdd2'), 'Teredo');
    assert.equal(nonPublicReason('100::1'), 'reserved');
    assert.equal(nonPublicReason('2606:4700::1111'), null);
  });

  it('lets WEBHOOK_ALLOW_PRIVATE_HOSTS exempt names, addresses and ranges', async () => {
    const allow = new AllowList(['127.0.0.1', '10.20.0.0/16', 'hooks.internal']);
    assert.equal(await checkReceivingUrl('https://127.0.0.1:8443/x', allow, noDns), null);
    assert.equal(await checkReceivingUrl('https://[::ffff:127.0.0.1]/x', allow, noDns), null);
    assert.equal(await checkReceivingUrl('https://10.20.3.4/x', allow, noDns), null);
    assert.equal(await checkReceivingUrl('https://hooks.internal/x', allow, noDns), null);
    assert.ok(await checkReceivingUrl('https://10.21.0.1/x', allow, noDns));
    assert.ok(await checkReceivingUrl('https://127.0.0.2/x', allow, noDns));
    assert.ok(await checkReceivingUrl('http://127.0.0.1/x', allow, noDns), 'https is still required');
  });
});
