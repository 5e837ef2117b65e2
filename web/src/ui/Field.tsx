// A form field with its label, hint and error. The error is the API's field error in plain words
// (see formErrors below): it sits under the field, the field is marked invalid, and both are tied
// together for screen readers.
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { plainFieldError } from '../api/field-errors';
import type { Translate } from '../app/i18n';
import { describeError } from './States';

export interface FieldControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  error?: string | undefined;
  children: (control: FieldControlProps) => ReactNode;
}

export function Field({ id, label, hint, error, children }: FieldProps) {
  const describedBy = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy || undefined,
      })}
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

export interface FormErrors<F extends string> {
  fields: Partial<Record<F, string>>;
  /** Errors that name no field of this form, and failures of the call itself. */
  general: string[];
}

export function noErrors<F extends string>(): FormErrors<F> {
  return { fields: {}, general: [] };
}

/** A failed save as errors by field (the API's 422 `errors: [{field, message}]`), in plain words. */
export function formErrors<F extends string>(
  error: unknown,
  fields: readonly F[],
  t: Translate,
): FormErrors<F> {
  const result: FormErrors<F> = noErrors();
  if (!(error instanceof ApiError) || error.fieldErrors.length === 0) {
    result.general.push(describeError(error, t));
    return result;
  }
  for (const fieldError of error.fieldErrors) {
    const root = fieldError.field.split(/[.[/]/)[0] as F;
    const text = plainFieldError(fieldError, t);
    if (fields.includes(root)) result.fields[root] ??= text;
    else result.general.push(text);
  }
  return result;
}
