// Inputs as the original service's clients send them: bracket query strings (search[name]=x,
// strSearch[]=a) and form-encoded bodies (images[]=a) next to JSON.
import type { FastifyInstance } from 'fastify';
import qs from 'qs';
import { AppError } from '../errors.js';

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
 * How deep arrays and objects may nest in a JSON body. Deeper is refused before it is parsed (400
 * `json_too_deep`); within it, a resource field nested past MAX_JSON_DEPTH is a 422 naming it.
 */
export const MAX_JSON_BODY_DEPTH = 64;

/**
 * JSON bodies through Fastify's own safe parser, except that an empty body counts as no body:
 * clients send `Content-Type: application/json` on body-less POSTs (confirm, test, rotate). A route
 * that needs a body still answers 422 for it. Only JSON and form bodies are read: Fastify's
 * text/plain parser is removed, so any other type is a 415.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonNestsDeeperThan(text, MAX_JSON_BODY_DEPTH)) {
      done(new AppError('http.json_too_deep', 400, { limit: MAX_JSON_BODY_DEPTH }), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}

/** Whether JSON text opens more than `limit` arrays or objects at once (strings are skipped). */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
