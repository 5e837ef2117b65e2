// The one error handler of the app: every failure leaves in the API's error shape, and a 5xx
// never shows its internal message. A database that cannot serve now is a 503 with Retry-After.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RETRY_AFTER_SECONDS, type UnavailableReason, unavailableReason } from '../db/unavailable.js';
import { AppError, type FieldError } from '../errors.js';
import { type MessageKey, translate } from '../i18n.js';
import { sendError } from './error-shape.js';
import { withInputProblems } from './input-checks.js';
import { allowedMethods } from './method-not-allowed.js';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      reply.headers(error.headers);
      return sendError(
        reply,
        error.status,
        translate(error.code, request.language, error.params),
        error.fieldErrors,
      );
    }
    const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
    if (fastifyError.validation) {
      // A malformed path parameter (/api/crop/crop/abc) names no record: not found.
      if (fastifyError.validationContext === 'params')
        return sendError(reply, 404, t(request, 'http.not_found'));
      return sendError(
        reply,
        422,
        t(request, 'http.validation_failed'),
        withInputProblems(
          request,
          fieldErrorsFromAjv(fastifyError.validation, fastifyError.validationContext),
        ),
      );
    }
    const known = knownFastifyError(fastifyError, request);
    if (known) return sendError(reply, known.status, known.message);
    const reason = unavailableReason(error);
    if (reason) return sendDatabaseUnavailable(request, reply, reason, error);
    const status = fastifyError.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, status, t(request, 'http.bad_request'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 500, t(request, 'http.internal'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const allowed = allowedMethods(app, path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        reply,
        405,
        t(request, 'http.method_not_allowed', { method: request.method, allowed: allowed.join(', ') }),
      );
    }
    return sendError(reply, 404, t(request, 'http.route_not_found', { method: request.method, path }));
  });
}

/**
 * 503 in the error shape with Retry-After, saying why in the message. Logged at warn with the
 * driver's message (an address at most; a connection string or password never reaches an error).
 */
export function sendDatabaseUnavailable(
  request: FastifyRequest,
  reply: FastifyReply,
  reason: UnavailableReason,
  err: unknown,
): FastifyReply {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  request.log.warn(
    { reason, code: typeof code === 'string' ? code : undefined, error: String(message).slice(0, 200) },
    'database unavailable',
  );
  reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return sendError(
    reply,
    503,
    t(request, 'db.unavailable', {
      reason: t(request, `db.reason.${reason}`),
      seconds: RETRY_AFTER_SECONDS,
    }),
  );
}

function t(request: FastifyRequest, key: MessageKey, params: Record<string, string | number> = {}): string {
  return translate(key, request.language, params);
}

function knownFastifyError(
  error: FastifyError,
  request: FastifyRequest,
): { status: number; message: string } | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: t(request, 'http.malformed_json') };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        status: 413,
        message: t(request, 'http.body_too_large', { limit: request.routeOptions.bodyLimit }),
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? {
            status: 415,
            message: t(request, 'http.unsupported_media_type', {
              type: String(request.headers['content-type'] ?? '').slice(0, 100),
            }),
          }
        : { status: 400, message: t(request, 'http.bad_request') };
  }
  // JSON.parse failures surface as SyntaxError with status 400.
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return { status: 400, message: t(request, 'http.malformed_json') };
  }
  return null;
}

/** Ajv errors → one entry per bad field, with a catalogue message (translated when sent). */
export function fieldErrorsFromAjv(errors: AjvError[], context = 'body'): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const error of errors) {
    let field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (error.keyword === 'required') {
      const missing = String(error.params.missingProperty ?? '');
      field = field ? `${field}.${missing}` : missing;
    }
    if (!field) field = context === 'querystring' ? 'query' : context;
    if (byField.has(field)) continue; // the first reason per field is the useful one
    byField.set(field, { field, ...fieldMessage(error) });
  }
  return [...byField.values()];
}

function fieldMessage(error: AjvError): Pick<FieldError, 'message' | 'params'> {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return { message: 'field.required' };
    case 'type':
      return { message: 'field.type', params: { type: describeType(String(p.type)) } };
    case 'minLength':
      return p.limit === 1 ? { message: 'field.min_length' } : { message: 'field.pattern' };
    case 'maxLength':
      return { message: 'field.max_length', params: { limit: Number(p.limit) } };
    case 'minimum':
      return { message: 'field.minimum', params: { limit: Number(p.limit) } };
    case 'maximum':
      return { message: 'field.maximum', params: { limit: Number(p.limit) } };
    case 'exclusiveMinimum':
      return { message: 'field.exclusive_minimum', params: { limit: Number(p.limit) } };
    case 'enum':
      return {
        message: 'field.enum',
        params: { values: [...new Set((p.allowedValues as unknown[]).map(String))].join(', ') },
      };
    case 'const':
      return { message: 'field.enum', params: { values: String(p.allowedValue) } };
    case 'pattern':
      return { message: 'field.pattern' };
    case 'format':
      return { message: 'field.format', params: { format: String(p.format) } };
    case 'maxItems':
      return { message: 'field.max_items', params: { limit: Number(p.limit) } };
    default:
      return { message: 'field.invalid' };
  }
}

function describeType(type: string): string {
  const names: Record<string, string> = {
    integer: 'an integer',
    number: 'a number',
    string: 'a string',
    boolean: 'a boolean',
    array: 'an array',
    object: 'an object',
    null: 'null',
  };
  return type
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}

export type { FastifyReply };
