// The API's error shape (the original service's 401 shape, used for every error), with a stable
// machine code next to the message:
//   [{ meta: { status_code, message, code, errors?: [{ field, message }] }, data: [] }]
import type { FastifyReply } from 'fastify';
import type { AppError, ErrorCode, FieldError } from '../errors.js';
import { type Language, translate } from '../i18n.js';

export interface ErrorBody {
  meta: {
    status_code: number;
    message: string;
    code: ErrorCode;
    errors?: { field: string; message: string }[];
  };
  data: [];
}

export function errorBody(
  status: number,
  code: ErrorCode,
  message: string,
  fieldErrors: FieldError[] = [],
  language: Language = 'en',
): [ErrorBody] {
  const meta: ErrorBody['meta'] = { status_code: status, message, code };
  if (fieldErrors.length > 0) meta.errors = formatFieldErrors(fieldErrors, language);
  return [{ meta, data: [] }];
}

/** An AppError's answer body, its message in the given language. */
export function errorBodyOf(error: AppError, language: Language): [ErrorBody] {
  return errorBody(
    error.status,
    error.code,
    translate(error.messageKey, language, error.params),
    error.fieldErrors,
    language,
  );
}

/** Field errors as the API answers them: `{field, message}` with the message translated. */
export function formatFieldErrors(
  fieldErrors: FieldError[],
  language: Language,
): { field: string; message: string }[] {
  return fieldErrors.map((e) => ({
    field: e.field,
    message: `${e.field} ${translate(e.message, language, e.params)}`,
  }));
}

/** Sends an AppError in the error shape, with its headers, in the request's language. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .headers(error.headers)
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBodyOf(error, reply.request.language));
}
