// Answer schemas every resource shares: the error shape and the confirmation of an update or delete.
import { Type } from 'typebox';

export const Confirmation = Type.Object({
  status_code: Type.Integer({ description: '0: success' }),
  message: Type.String(),
});

export const ErrorAnswer = Type.Array(
  Type.Object({
    meta: Type.Object({
      status_code: Type.Integer(),
      message: Type.String(),
      errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
    data: Type.Array(Type.Unknown(), { maxItems: 0 }),
  }),
  { description: 'The error shape' },
);

/** The error answers of a route, for its response schema: `{...errorAnswers(401, 404)}`. */
export function errorAnswers(...codes: number[]): Record<number, typeof ErrorAnswer> {
  return Object.fromEntries(codes.map((code) => [code, ErrorAnswer]));
}
