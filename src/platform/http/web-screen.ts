// The farm app (web/, built by Vite into web/dist) served under /manage/.
// Hashed files under assets/ never change, so browsers keep them for a year; index.html is
// revalidated on every load so a new build is picked up at once. Any other path under /manage/
// is a client-side route and gets index.html (the app's router takes it from there).
// The build writes brotli and gzip copies beside each file (name.js.br, name.js.gz); the one the
// browser accepts is sent with Content-Encoding, and every answer says it varies by Accept-Encoding.
import { existsSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

export const WEB_SCREEN_PREFIX = '/manage/';

/** web/dist next to src/ (also right from dist/ when the server is compiled). */
export const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

// The screen loads nothing from other origins: its own scripts, styles and API only.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface WebScreenOptions {
  /** Folder holding the built screen (index.html, assets/). */
  distDir: string;
}

export const webScreenRoutes: FastifyPluginAsync<WebScreenOptions> = async (app, { distDir }) => {
  const root = resolve(distDir);
  const hidden = { schema: { hide: true } };

  app.get('/', hidden, async (_request, reply) => reply.redirect(WEB_SCREEN_PREFIX, 302));

  const built = existsSync(resolve(root, 'index.html'));
  const notBuilt =
    'The farm app is not built. Run "npm run build" (npm install runs it too), then restart Furrow.';
  if (built) {
    await app.register(fastifyStatic, {
      root,
      serve: false,
      cacheControl: false,
      index: false,
      preCompressed: true,
    });
  } else {
    // Said once when the process starts listening; a worker-only process never listens.
    app.addHook('onListen', async () => app.log.warn({ missing: resolve(root, 'index.html') }, notBuilt));
  }

  const serveScreen = async (path: string, reply: FastifyReply) => {
    if (!built) {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(notBuilt);
    }
    if (path !== '' && path !== 'index.html' && isFileInside(root, path)) {
      reply.header('cache-control', path.startsWith('assets/') ? IMMUTABLE : REVALIDATE);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('vary', 'accept-encoding');
      return reply.sendFile(path);
    }
    // A missing hashed asset is an old build's file: a 404, never index.html under a .js name.
    if (path.startsWith('assets/')) return reply.callNotFound();
    return sendIndex(reply);
  };

  // The router ignores trailing slashes, so this one route answers both /manage and /manage/.
  app.get('/manage', hidden, async (request, reply) =>
    request.url.split('?')[0] === '/manage' ? reply.redirect(WEB_SCREEN_PREFIX, 301) : serveScreen('', reply),
  );
  app.get<{ Params: { '*': string } }>(`${WEB_SCREEN_PREFIX}*`, hidden, async (request, reply) =>
    serveScreen(request.params['*'] ?? '', reply),
  );
};

function sendIndex(reply: FastifyReply): FastifyReply {
  return reply
    .header('cache-control', REVALIDATE)
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('vary', 'accept-encoding')
    .sendFile('index.html');
}

function isFileInside(root: string, relative: string): boolean {
  const full = resolve(root, relative);
  if (!full.startsWith(root + sep)) return false;
  try {
    return statSync(full).isFile();
  } catch {
    return false;
  }
}
