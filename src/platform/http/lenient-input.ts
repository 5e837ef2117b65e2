// Inputs as the original service's clients send them: bracket query strings (search[name]=x,
// strSearch[]=a) and form-encoded bodies (images[]=a) next to JSON.
import type { FastifyInstance } from 'fastify';
import qs from 'qs';

const QS_OPTIONS: qs.IParseOptions = {
  depth: 3,
  arrayLimit: 1000,
  parameterLimit: 2000,
  allowPrototypes: false,
  // "a=1&a=2" → ["1", "2"], as PHP-era clients expect for repeated keys.
  duplicates: 'combine',
};

export function parseQueryString(raw: string): Record<string, unknown> {
  return qs.parse(raw, QS_OPTIONS) as Record<string, unknown>;
}

export function registerFormBodyParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      try {
        done(null, qs.parse(body as string, QS_OPTIONS));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );
}

/**
 * JSON bodies through Fastify's own safe parser, except that an empty body counts as no body:
 * clients send `Content-Type: application/json` on body-less POSTs (confirm, test, rotate). A route
 * that needs a body still answers 422 for it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}
