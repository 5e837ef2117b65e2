import type { MessageKey } from './i18n.js';

export interface FieldError {
  field: string;
  /** Catalogue key with parameters, translated when the answer is written. */
  message: MessageKey | string;
  params?: Record<string, string | number>;
}

/** The one error type services throw; the HTTP error handler turns it into the API's error shape. */
export class AppError extends Error {
  constructor(
    readonly code: MessageKey,
    readonly status: number,
    readonly params: Record<string, string | number> = {},
    readonly fieldErrors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(code);
    this.name = 'AppError';
  }
}

export const notFound = () => new AppError('http.not_found', 404);
export const forbidden = (code: MessageKey = 'auth.forbidden') => new AppError(code, 403);
export const conflict = (code: MessageKey, params: Record<string, string | number> = {}) =>
  new AppError(code, 409, params);
export const validationFailed = (fieldErrors: FieldError[]) =>
  new AppError('http.validation_failed', 422, {}, fieldErrors);
