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
