import type { MessageKey } from './i18n.js';

export interface FieldError {
  field: string;
  /** Catalogue key with parameters, translated when the answer is written. */
  message: MessageKey | string;
  params?: Record<string, string | number>;
}

/**
 * The stable machine codes of error answers (`meta.code`), each with the one HTTP status it is
 * answered with. Clients branch on these, never on message texts; docs/errors.md explains each.
 */
export const ERROR_CODES = {
  bad_request: 400,
  malformed_json: 400,
  json_too_deep: 400,
  bad_url_encoding: 400,
  token_invalid: 401,
  forbidden: 403,
  owner_only: 403,
  session_only: 403,
  own_tasks_only: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  harvest_already_confirmed: 409,
  delivery_in_progress: 409,
  farm_in_use: 409,
  block_in_use: 409,
  zone_in_use: 409,
  own_account: 409,
  idempotency_key_in_use: 409,
  dev_eui_taken: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_key_reused: 422,
  too_many_requests: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
  database_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/**
 * The code of each error message. Keys of the same meaning share a code (every 429 is
 * `too_many_requests`: wait for Retry-After); a conflict a client can act on has its own.
 * Typed by string so that keys of answers declared elsewhere (If-Match, Idempotency-Key) can be
 * named before their messages exist.
 */
const CODE_OF_MESSAGE: Readonly<Record<string, ErrorCode>> = {
  'auth.token_invalid': 'token_invalid',
  'auth.forbidden': 'forbidden',
  'auth.owner_only': 'owner_only',
  'auth.session_only': 'session_only',
  'auth.too_many_attempts': 'too_many_requests',
  'diary.staff_own_tasks': 'own_tasks_only',
  'http.bad_request': 'bad_request',
  'http.bad_request_line': 'bad_request',
  'http.malformed_json': 'malformed_json',
  'http.json_too_deep': 'json_too_deep',
  'http.bad_url_encoding': 'bad_url_encoding',
  'http.not_found': 'not_found',
  'http.route_not_found': 'not_found',
  'http.method_not_allowed': 'method_not_allowed',
  'http.request_timeout': 'request_timeout',
  'http.conflict': 'conflict',
  'http.precondition_failed': 'precondition_failed',
  'http.body_too_large': 'payload_too_large',
  'http.unsupported_media_type': 'unsupported_media_type',
  'http.content_type_missing': 'unsupported_media_type',
  'http.validation_failed': 'validation_failed',
  'http.rate_limited': 'too_many_requests',
  'http.headers_too_large': 'headers_too_large',
  'http.internal': 'internal_error',
  'http.unavailable': 'service_unavailable',
  'db.unavailable': 'database_unavailable',
  'harvest.already_confirmed': 'harvest_already_confirmed',
  'iot.dev_eui_taken': 'dev_eui_taken',
  'iot.chirpstack_event_unknown': 'bad_request',
  'iot.protobuf_body': 'unsupported_media_type',
  'webhook.delivery_in_progress': 'delivery_in_progress',
  'webhook.test_queue_full': 'too_many_requests',
  'webhook.test_rate_limited': 'too_many_requests',
  'users.self_change': 'own_account',
  'places.farm_in_use': 'farm_in_use',
  'places.block_in_use': 'block_in_use',
  'places.zone_in_use': 'zone_in_use',
  'idempotency.key_in_use': 'idempotency_key_in_use',
  'idempotency.key_reused': 'idempotency_key_reused',
};

/** The general code of a status, for a message the table does not name. */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'token_invalid',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'too_many_requests',
  431: 'headers_too_large',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** The message keys the table names (a test checks every AppError of the sources is among them). */
export const CODED_MESSAGES: readonly string[] = Object.keys(CODE_OF_MESSAGE);

/** The machine code of an error: its message's own, else its status's. */
export function errorCodeOf(messageKey: string, status: number): ErrorCode {
  const own = CODE_OF_MESSAGE[messageKey];
  if (own !== undefined && ERROR_CODES[own] === status) return own;
  return CODE_OF_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

/** The one error type services throw; the HTTP error handler turns it into the API's error shape. */
export class AppError extends Error {
  /** The stable machine code answered in `meta.code`. */
  readonly code: ErrorCode;

  constructor(
    readonly messageKey: MessageKey,
    readonly status: number,
    readonly params: Record<string, string | number> = {},
    readonly fieldErrors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(messageKey);
    this.name = 'AppError';
    this.code = errorCodeOf(messageKey, status);
  }
}

export const notFound = () => new AppError('http.not_found', 404);
export const forbidden = (code: MessageKey = 'auth.forbidden') => new AppError(code, 403);
export const conflict = (code: MessageKey, params: Record<string, string | number> = {}) =>
  new AppError(code, 409, params);
export const validationFailed = (fieldErrors: FieldError[]) =>
  new AppError('http.validation_failed', 422, {}, fieldErrors);
