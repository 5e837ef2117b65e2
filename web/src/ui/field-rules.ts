// A section's own plain words for the API's field errors where the app's shared rules
// (api/field-errors.ts) have none, e.g. a password too short or a weight of 0 or less; the rest
// as the app words them (ui/Field formErrors).
import { ApiError } from '../api/client';
import type { Params, Translate } from '../app/i18n';
import { type FormErrors, formErrors } from './Field';

export interface OwnRule<K extends string> {
  field: string;
  /** The API's reason (after the field's name), in English or Vietnamese. */
  match: RegExp[];
  text: K;
}

export function ownFormErrors<F extends string, K extends string>(
  error: unknown,
  fields: readonly F[],
  /** The section's t(), which knows the app's shared texts too. */
  t: (key: K, params?: Params) => string,
  rules: readonly OwnRule<K>[],
): FormErrors<F> {
  const result = formErrors(error, fields, t as unknown as Translate);
  if (!(error instanceof ApiError)) return result;
  for (const fieldError of error.fieldErrors) {
    const field = fieldError.field as F;
    if (!fields.includes(field)) continue;
    const reason = fieldError.message.startsWith(`${fieldError.field} `)
      ? fieldError.message.slice(fieldError.field.length + 1)
      : fieldError.message;
    const rule = rules.find((r) => r.field === field && r.match.some((pattern) => pattern.test(reason)));
    if (rule) result.fields[field] = t(rule.text);
  }
  return result;
}
