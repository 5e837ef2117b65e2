// The one error handler of the app: every failure leaves in the API's error shape with its machine
// code, and a 5xx never shows its internal message. A database that cannot serve now is a 503 with
// Retry-After. The framework's own failures go the same way: a path Fastify cannot decode
// (frameworkErrors) and a request Node's HTTP parser refuses before Fastify sees it (clientError).
// None of them echoes the URL, whose query may hold a token.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RETRY_AFTER_SECONDS, type UnavailableReason, unavailableReason } from '../db/unavailable.js';
import { AppError, type FieldError } from '../errors.js';
import { languageFromAcceptLanguage, type MessageKey, translate } from '../i18n.js';
import { errorBodyOf, sendError } from './error-shape.js';
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
    if (error instanceof AppError) return sendError(reply, error);
    const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
    if (fastifyError.validation) {
      // A malformed path parameter (/api/crop/crop/abc) names no record: not found.
      if (fastifyError.validationContext === 'params')
        return sendError(reply, new AppError('http.not_found', 404));
      const fieldErrors = fieldErrorsFromAjv(fastifyError.validation, fastifyError.validationContext);
      return sendError(
        reply,
        new AppError('http.validation_failed', 422, {}, withInputProblems(request, fieldErrors)),
      );
    }
    const known = knownFastifyError(fastifyError, request);
    if (known) return sendError(reply, known);
    const reason = unavailableReason(error);
    if (reason) return sendDatabaseUnavailable(request, reply, reason, error);
    const status = fastifyError.statusCode;
    // Any other client error of the framework or a plugin: a plain 400, its own text never shown.
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, new AppError('http.bad_request', 400));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new AppError('http.internal', 500));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const allowed = allowedMethods(app, path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        reply,
        new AppError('http.method_not_allowed', 405, { method: request.method, allowed: allowed.join(', ') }),
      );
    }
    return sendError(reply, new AppError('http.route_not_found', 404, { method: request.method, path }));
  });
}

/**
 * Fastify's `frameworkErrors`: a path it cannot percent-decode (`/api/crop/crop/%ZZ`), a path
 * parameter over its length limit. Its own answer would echo the whole URL, token included. The
 * request has been through no hook: its language and request id are set here.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  request.language = languageFromAcceptLanguage(request.headers['accept-language']) ?? 'en';
  reply.header('x-request-id', request.id);
  const answer =
    error.code === 'FST_ERR_BAD_URL'
      ? new AppError('http.bad_url_encoding', 400)
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError('http.not_found', 404) // an id that long names no record
        : new AppError('http.internal', 500);
  if (answer.status >= 500) request.log.error({ err: error }, 'framework error');
  sendError(reply, answer);
}

/**
 * The server's `clientError`: Node's HTTP parser refused the request (raw non-ASCII bytes or
 * control characters in the path, query or a header; a malformed request line), its headers were
 * too large, or it did not arrive in time. No request exists yet, so the answer is written to the
 * socket as Node would write its own, in the error shape (English: no header was read).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError('http.request_timeout', 408)
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('http.headers_too_large', 431)
        : new AppError('http.bad_request_line', 400);
  // Never write into the middle of an answer already under way on this connection.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(errorBodyOf(answer, 'en'));
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
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
  return sendError(
    reply,
    new AppError(
      'db.unavailable',
      503,
      { reason: t(request, `db.reason.${reason}`), seconds: RETRY_AFTER_SECONDS },
      [],
      { 'retry-after': String(RETRY_AFTER_SECONDS) },
    ),
  );
}

function t(request: FastifyRequest, key: MessageKey, params: Record<string, string | number> = {}): string {
  return translate(key, request.language, params);
}

function knownFastifyError(error: FastifyError, request: FastifyRequest): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('http.malformed_json', 400);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('http.body_too_large', 413, { limit: request.routeOptions.bodyLimit });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const type = String(request.headers['content-type'] ?? '').trim();
      return type === ''
        ? new AppError('http.content_type_missing', 415)
        : new AppError('http.unsupported_media_type', 415, { type: type.slice(0, 100) });
    }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('http.bad_request', 400);
  }
  // JSON.parse failures surface as SyntaxError with status 400.
  if (error instanceof SyntaxError && error.statusCode === 400)
    return new AppError('http.malformed_json', 400);
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
