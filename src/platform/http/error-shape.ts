// The API's error shape (the original service's 401 shape, used for every error):
//   [{ meta: { status_code, message, errors?: [{ field, message }] }, data: [] }]
import type { FastifyReply } from 'fastify';
import type { FieldError } from '../errors.js';
import { type Language, translate } from '../i18n.js';

export interface ErrorBody {
  meta: { status_code: number; message: string; errors?: { field: string; message: string }[] };
  data: [];
}

export function errorBody(
  status: number,
  message: string,
  fieldErrors: FieldError[] = [],
  language: Language = 'en',
): [ErrorBody] {
  const meta: ErrorBody['meta'] = { status_code: status, message };
  if (fieldErrors.length > 0) meta.errors = formatFieldErrors(fieldErrors, language);
  return [{ meta, data: [] }];
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

export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  fieldErrors: FieldError[] = [],
): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(status, message, fieldErrors, reply.request.language));
}
