// The farm app's built files: precompressed copies (.br and .gz beside each text file, served by
// src/platform/http/web-screen.ts by Accept-Encoding) and the first-load budget: the gzip size of
// the JS that web/dist/index.html loads at once (its module script and modulepreloads).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** First load of /manage/: at most this much compressed (gzip) JS (DESIGN, "The farm app"). */
export const FIRST_LOAD_BUDGET_BYTES = 150 * 1024;

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map)$/;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

export function gzipSize(buffer) {
  return gzipSync(buffer, { level: 9 }).length;
}

/** Smaller files are sent as they are: a compressed copy would save next to nothing. */
export const MIN_COMPRESSED_SIZE = 256;

/** Writes <file>.br and <file>.gz beside every text file of dist that compression makes smaller. */
export function precompress(dist) {
  let count = 0;
  for (const path of [...files(dist)]) {
    if (!COMPRESSIBLE.test(path) || statSync(path).size < MIN_COMPRESSED_SIZE) continue;
    const raw = readFileSync(path);
    const gz = gzipSync(raw, { level: 9 });
    const br = brotliCompressSync(raw, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
    });
    if (gz.length < raw.length) writeFileSync(`${path}.gz`, gz);
    if (br.length < raw.length) writeFileSync(`${path}.br`, br);
    count += 1;
  }
  return count;
}

/** The JS files index.html loads before anything is shown, with their raw, gzip and brotli sizes. */
export function firstLoad(dist) {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const urls = [
    ...html.matchAll(/<script[^>]*\ssrc="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g),
  ].map((m) => m[1]);
  const scripts = [...new Set(urls)].map((url) => {
    const raw = readFileSync(join(dist, url.replace(/^\/manage\//, '')));
    return {
      url,
      raw: raw.length,
      gzip: gzipSize(raw),
      brotli: brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  });
  const sum = (key) => scripts.reduce((total, s) => total + s[key], 0);
  return { scripts, raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') };
}
