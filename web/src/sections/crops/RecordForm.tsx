// The frame of the section's add and edit forms: the way back, the heading, the summary of what
// to fix, and the buttons. A refused save shows the API's reasons next to each field, keeps what
// was typed, and puts the focus on the first field to fix.
import { Link } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useTexts } from '../../app/texts';
import { type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { useIsOwner } from './Parts';
import { texts } from './texts';

/** The form's errors and what to do with a refused save: show them and focus the first field. */
export function useRecordErrors<F extends string>(idPrefix: string, fields: readonly F[]) {
  const { t } = useTexts(texts);
  const [errors, setErrors] = useState<FormErrors<F>>(noErrors);
  const summaryRef = useRef<HTMLDivElement>(null);
  function show(next: FormErrors<F>) {
    setErrors(next);
    requestAnimationFrame(() => {
      const first = fields.find((field) => next.fields[field]);
      const target = first ? document.getElementById(`${idPrefix}-${first}`) : null;
      (target ?? summaryRef.current)?.focus();
    });
  }
  function refused(err: unknown) {
    if (!(err instanceof SessionExpiredError)) show(formErrors(err, fields, t));
  }
  return { errors, clear: () => setErrors(noErrors()), show, refused, summaryRef };
}

/**
 * The page around a form: the way back and the heading. The edit pages keep it while the record
 * loads, so the heading that took the focus on arrival stays the same element.
 */
export function RecordFrame({
  title,
  back,
  children,
}: {
  title: string;
  back: { to: string; label: string };
  children: ReactNode;
}) {
  const { t } = useTexts(texts);
  const isOwner = useIsOwner();
  return (
    <section className="page narrow crops-page">
      <Link className="back" to={back.to}>
        ← {back.label}
      </Link>
      <PageHeading>{title}</PageHeading>
      {/* Staff reach a form only by typing its address: they are told, and the API refuses anyway. */}
      {isOwner ? children : <p className="notice notice-info">{t('read_only')}</p>}
    </section>
  );
}

interface RecordFormProps {
  back: string;
  errors: FormErrors<string>;
  summaryRef: React.RefObject<HTMLDivElement | null>;
  saving: boolean;
  adding: boolean;
  onSubmit: () => void;
  children: ReactNode;
}

export function RecordForm({
  back,
  errors,
  summaryRef,
  saving,
  adding,
  onSubmit,
  children,
}: RecordFormProps) {
  const { t } = useTexts(texts);
  const hasFieldErrors = Object.keys(errors.fields).length > 0;
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!saving) onSubmit();
  }
  return (
    <form onSubmit={submit} noValidate className="record-form">
      {(errors.general.length > 0 || hasFieldErrors) && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {errors.general.length > 0 ? (
            errors.general.map((message) => <p key={message}>{message}</p>)
          ) : (
            <p>{t('error.fix_fields')}</p>
          )}
        </div>
      )}
      {children}
      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={saving || undefined}>
          {saving ? t('form.saving') : t(adding ? 'form.create' : 'form.save')}
        </button>
        <Link className="button secondary" to={back}>
          {t('form.cancel')}
        </Link>
      </div>
    </form>
  );
}

/** The active/inactive checkbox of crops and product groups. */
export function ActiveField({
  id,
  checked,
  onChange,
  error,
}: {
  id: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string | undefined;
}) {
  const { t } = useTexts(texts);
  const describedBy = [error ? `${id}-error` : null, `${id}-hint`].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label className="check" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(event) => onChange(event.target.checked)}
        />
        <span>{t('form.active')}</span>
      </label>
      <p id={`${id}-hint`} className="hint">
        {t('form.active_hint')}
      </p>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** Choices of a reference (group, variety, parent): none, then the farm's records by name. */
export function ReferenceOptions({
  records,
  except,
}: {
  records: { id: number; name: string }[];
  except?: number;
}) {
  const { t } = useTexts(texts);
  return (
    <>
      <option value="">{t('form.none')}</option>
      {[...records]
        .filter((r) => r.id !== except)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((r) => (
          <option key={r.id} value={String(r.id)}>
            {r.name}
          </option>
        ))}
    </>
  );
}
