// Serving the built farm app under /manage/: files, cache headers, client routes,
// and a clear answer when the screen has not been built.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ManualClock } from '../src/platform/clock.js';
import { type DatabaseHandle, openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { loggerOptions } from '../src/platform/http/logging.js';
import { ensureWebBuilt, WEB_DIST_DIR } from './support/browser.js';

const webAssets = '../scripts/web-assets.mjs'; // a plain .mjs module of the build, without types
const { FIRST_LOAD_BUDGET_BYTES, MIN_COMPRESSED_SIZE, firstLoad } = (await import(webAssets)) as {
  FIRST_LOAD_BUDGET_BYTES: number;
  MIN_COMPRESSED_SIZE: number;
  firstLoad(dist: string): {
    gzip: number;
    brotli: number;
    raw: number;
    scripts: { url: string; gzip: number }[];
  };
};

const INDEX =
  '<!doctype html><title>screen</title><script type="module" src="/manage/assets/app-1a2b3c.js"></script>';

async function appServing(distDir: string, logSink?: Writable) {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-web-'));
  const url = `sqlite:${join(dir, 'furrow.db')}`;
  const database: DatabaseHandle = openDatabase(url);
  await migrateToLatest(database.db);
  const app = await buildApp({
    config: loadConfig({ DATABASE_URL: url }),
    secretKey: Buffer.alloc(32, 7),
    database,
    clock: new ManualClock(),
    logger: logSink ? loggerOptions('info', logSink) : false,
    webDistDir: distDir,
  });
  return {
    app,
    async close() {
      await app.close();
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('the built screen under /manage/', () => {
  let dist: string;
  let served: { app: FastifyInstance; close(): Promise<void> };

  before(async () => {
    dist = mkdtempSync(join(tmpdir(), 'furrow-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), INDEX);
    writeFileSync(join(dist, 'assets', 'app-1a2b3c.js'), 'console.log("screen")');
    writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    // Precompressed copies, as the build writes them (different bytes, to see which is sent).
    writeFileSync(join(dist, 'assets', 'app-1a2b3c.js.br'), brotliCompressSync('console.log("br")'));
    writeFileSync(join(dist, 'assets', 'app-1a2b3c.js.gz'), gzipSync('console.log("gz")'));
    writeFileSync(join(dist, 'index.html.gz'), gzipSync(INDEX));
    served = await appServing(dist);
  });
  after(async () => {
    await served.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('answers index.html at /manage/, never cached without revalidation, with a strict CSP', async () => {
    const res = await served.app.inject({ method: 'GET', url: '/manage/' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, INDEX);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
    assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  it('redirects / and /manage to /manage/', async () => {
    for (const url of ['/', '/manage', '/manage?x=1']) {
      const res = await served.app.inject({ method: 'GET', url });
      assert.ok([301, 302].includes(res.statusCode), `${url} → ${res.statusCode}`);
      assert.equal(res.headers.location, '/manage/');
    }
  });

  it('keeps hashed assets for a year and other files revalidated', async () => {
    const asset = await served.app.inject({ method: 'GET', url: '/manage/assets/app-1a2b3c.js' });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.body, 'console.log("screen")');
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.ok(asset.headers.etag, 'assets carry an ETag');

    const icon = await served.app.inject({ method: 'GET', url: '/manage/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['cache-control'], 'no-cache');
  });

  it('sends the precompressed copy the browser accepts, with Content-Encoding and Vary', async () => {
    const url = '/manage/assets/app-1a2b3c.js';
    const br = await served.app.inject({
      method: 'GET',
      url,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), 'console.log("br")');
    assert.match(String(br.headers['content-type']), /javascript/);
    assert.equal(br.headers.vary, 'accept-encoding');
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');

    const gz = await served.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.rawPayload).toString(), 'console.log("gz")');
    assert.equal(gz.headers.vary, 'accept-encoding');

    const plain = await served.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, 'console.log("screen")');
    assert.equal(plain.headers.vary, 'accept-encoding');

    // index.html too (only a .gz here: a brotli-first browser gets the gzip copy), still revalidated.
    for (const route of ['/manage/', '/manage/webhooks']) {
      const index = await served.app.inject({
        method: 'GET',
        url: route,
        headers: { 'accept-encoding': 'br, gzip' },
      });
      assert.equal(index.headers['content-encoding'], 'gzip', route);
      assert.equal(gunzipSync(index.rawPayload).toString(), INDEX, route);
      assert.match(String(index.headers['content-type']), /^text\/html/, route);
      assert.equal(index.headers['cache-control'], 'no-cache', route);
      assert.equal(index.headers.vary, 'accept-encoding', route);
    }
  });

  it('answers index.html for client routes (the screen routes them)', async () => {
    for (const url of ['/manage/webhooks', '/manage/webhooks/ep_123', '/manage/webhooks/ep_123/edit?x=1']) {
      const res = await served.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, INDEX, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
    }
  });

  it('404s a missing asset instead of answering HTML under a script name', async () => {
    const res = await served.app.inject({ method: 'GET', url: '/manage/assets/app-old.js' });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /application\/json/);
  });

  it('never serves files outside the build folder', async () => {
    for (const url of ['/manage/..%2f..%2fpackage.json', '/manage/%2e%2e/%2e%2e/package.json']) {
      const res = await served.app.inject({ method: 'GET', url });
      assert.ok(!res.body.includes('"name"'), `${url} leaked a file`);
    }
  });

  it('answers HEAD, and 405 for other methods', async () => {
    const head = await served.app.inject({ method: 'HEAD', url: '/manage/' });
    assert.equal(head.statusCode, 200);
    const post = await served.app.inject({ method: 'POST', url: '/manage/webhooks' });
    assert.equal(post.statusCode, 405);
  });

  it('leaves the API and its 404s alone', async () => {
    const res = await served.app.inject({ method: 'GET', url: '/api/nope' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json()[0].meta.status_code, 404);
    const health = await served.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
  });
});

describe('when the screen is not built', () => {
  it('answers 503 with what to run, and says so once in the log at start', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const missing = join(tmpdir(), `furrow-no-dist-${process.pid}`);
    const served = await appServing(missing, sink);
    try {
      await served.app.listen({ port: 0, host: '127.0.0.1' });
      const res = await served.app.inject({ method: 'GET', url: '/manage/webhooks' });
      assert.equal(res.statusCode, 503);
      assert.match(res.body, /npm run build/);
      assert.ok(!res.body.includes(missing), 'the answer does not show server paths');
      const warnings = lines.filter((line) => line.includes('not built'));
      assert.equal(warnings.length, 1, lines.join('\n'));
      assert.equal(JSON.parse(warnings[0]!).level, 40);
    } finally {
      await served.close();
    }
  });
});

describe('the real build (web/dist)', () => {
  before(() => ensureWebBuilt());

  it('loads at most 150 KB of compressed JS first; the rest is split by route', () => {
    const first = firstLoad(WEB_DIST_DIR);
    assert.ok(
      first.gzip <= FIRST_LOAD_BUDGET_BYTES,
      `first load ${first.gzip} bytes gzip > ${FIRST_LOAD_BUDGET_BYTES}: ${JSON.stringify(first.scripts)}`,
    );
    const scripts = readdirSync(join(WEB_DIST_DIR, 'assets')).filter((name) => name.endsWith('.js'));
    assert.ok(scripts.length > first.scripts.length, 'pages are separate files, loaded when opened');
    assert.ok(
      scripts.some((name) => name.startsWith('EndpointDetail-')),
      'the Webhooks pages are not in the first load',
    );
  });

  it('has a brotli and a gzip copy beside every script and style worth compressing', () => {
    const assets = join(WEB_DIST_DIR, 'assets');
    const names = readdirSync(assets).filter((n) => /\.(js|css)$/.test(n));
    assert.ok(names.some((n) => statSync(join(assets, n)).size >= MIN_COMPRESSED_SIZE));
    for (const name of names.filter((n) => statSync(join(assets, n)).size >= MIN_COMPRESSED_SIZE)) {
      assert.ok(existsSync(join(assets, `${name}.br`)), `${name}.br`);
      assert.ok(existsSync(join(assets, `${name}.gz`)), `${name}.gz`);
    }
    assert.ok(existsSync(join(WEB_DIST_DIR, 'index.html.br')));
  });
});
