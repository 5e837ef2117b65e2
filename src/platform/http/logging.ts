// Logger options: JSON lines with request ids; tokens never reach a log line.
import type { FastifyServerOptions } from 'fastify';

/**
 * Strips the value of every query parameter that the query parser reads as `token`, however it is
 * spelled: `token`, `tok%65n`, `%74oken`, `[token]`, `token[]`, `%5Btoken%5D`... A pattern on the
 * raw text would miss the encoded spellings, which authenticate all the same.
 */
export function redactToken(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end < 0 ? undefined : end);
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    return isTokenKey(key) ? `${key}=[redacted]` : part;
  });
  return `${url.slice(0, start + 1)}${parts.join('&')}${end < 0 ? '' : url.slice(end)}`;
}

/** Whether a raw query key names `token` once decoded as qs decodes it (its root or first bracket). */
function isTokenKey(raw: string): boolean {
  let key: string;
  try {
    key = decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // qs keeps an undecodable key as it is; decode what can be decoded to be safe.
    key = raw.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  const root = key.startsWith('[') ? (/^\[([^\]]*)\]/.exec(key)?.[1] ?? key) : key.split('[')[0];
  return root?.trim().toLowerCase() === 'token';
}

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: redactToken(req.url),
        remoteAddress: req.ip,
      }),
    },
  };
}
