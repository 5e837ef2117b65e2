// Logger options: JSON lines with request ids; tokens never reach a log line.
import type { FastifyServerOptions } from 'fastify';

/** Strips the value of a ?token= query parameter from a URL before it is logged. */
export function redactToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');
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
