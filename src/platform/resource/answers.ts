// Answer schemas every resource shares: the error shape and the confirmation of an update or delete.
import { Type } from 'typebox';
import { ERROR_CODE_NAMES, type ErrorCode } from '../errors.js';
import { nameSchema } from '../http/openapi-components.js';

export const Confirmation = nameSchema(
  'Confirmation',
  Type.Object({
    status_code: Type.Integer({ description: '0: success' }),
    message: Type.String(),
  }),
);

export const ErrorAnswer = nameSchema(
  'Error',
  Type.Array(
    Type.Object({
      meta: Type.Object({
        status_code: Type.Integer({ description: 'The HTTP status, repeated' }),
        message: Type.String({ description: "For people, in the request's language; never parse it" }),
        code: Type.Unsafe<ErrorCode>({
          type: 'string',
          enum: ERROR_CODE_NAMES,
          description: 'Stable machine code of the failure: what a client branches on (docs/errors.md)',
        }),
        errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
      }),
      data: Type.Array(Type.Unknown(), { maxItems: 0 }),
    }),
    { description: 'The error shape' },
  ),
);

/** The error answers of a route, for its response schema: `{...errorAnswers(401, 404)}`. */
export function errorAnswers(...codes: number[]): Record<number, typeof ErrorAnswer> {
  return Object.fromEntries(codes.map((code) => [code, ErrorAnswer]));
}
