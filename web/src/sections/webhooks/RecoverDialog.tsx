// "Send failed deliveries again": a period (from, and an optional end) in the browser's time zone,
// sent as ISO 8601 with the browser's offset. The server's refusals are shown next to their field.
// The same dialog pattern as ui/ConfirmDialog: the focus stays inside, Escape cancels, and on close
// it returns to the button that opened it.
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, SessionExpiredError } from '../../api/client';
import { plainFieldError } from '../../api/field-errors';
import { useAnnounce } from '../../app/announce';
import { focusPageHeading } from '../../app/focus';
import { useTexts } from '../../app/texts';
import { Field } from '../../ui/Field';
import { describeError } from '../../ui/States';
import { useRecover } from './api';
import { texts } from './texts';

const DAY_MS = 24 * 60 * 60 * 1000;
const pad = (n: number) => String(n).padStart(2, '0');

/** A moment as an <input type="datetime-local"> value, in the browser's zone, to the minute. */
export function toLocalInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local value as ISO 8601 with the browser's offset ("2026-11-24T07:30:00+07:00"). */
export function localInputToIso(value: string): string | null {
  const date = new Date(value);
  if (value === '' || Number.isNaN(date.getTime())) return null;
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${toLocalInput(date)}:${pad(date.getSeconds())}${zone}`;
}

type Fields = { since?: string; until?: string };

/** The server's refusals of a recover, in the section's words where they are known. */
function recoverErrors(
  err: unknown,
  t: ReturnType<typeof useTexts<keyof typeof texts.en>>['t'],
): { fields: Fields; general: string | null } {
  if (!(err instanceof ApiError) || err.fieldErrors.length === 0) {
    return { fields: {}, general: describeError(err, t) };
  }
  const fields: Fields = {};
  for (const fieldError of err.fieldErrors) {
    const name = fieldError.field === 'until' ? 'until' : 'since';
    const reason = fieldError.message;
    // "selects 12000 failed deliveries; at most 10000 …": the only refusal that counts.
    const numbers = reason.match(/\d+/g) ?? [];
    let text: string;
    if (numbers.length >= 2) {
      text = t('controls.recover_too_many', { count: numbers[0]!, limit: numbers[1]! });
    } else if (/\b(since|until)$/.test(reason)) text = t('controls.recover_order');
    else if (/YYYY-MM-DD/.test(reason)) text = t('controls.recover_time');
    else text = plainFieldError(fieldError, t);
    fields[name] ??= text;
  }
  return { fields, general: null };
}

interface RecoverDialogProps {
  endpointId: string;
  onDone: () => void;
}

export function RecoverDialog({ endpointId, onDone }: RecoverDialogProps) {
  const { t, plural } = useTexts(texts);
  const announce = useAnnounce();
  const recover = useRecover();
  const ref = useRef<HTMLDialogElement>(null);
  const sinceRef = useRef<HTMLInputElement>(null);
  const untilRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const introId = useId();
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - DAY_MS)));
  const [until, setUntil] = useState('');
  const [errors, setErrors] = useState<Fields>({});
  const [general, setGeneral] = useState<string | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    sinceRef.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
      else focusPageHeading();
    };
  }, []);

  function showErrors(fields: Fields, message: string | null) {
    setErrors(fields);
    setGeneral(message);
    requestAnimationFrame(() => {
      if (fields.since) sinceRef.current?.focus();
      else if (fields.until) untilRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (recover.isPending) return;
    const sinceIso = localInputToIso(since);
    const untilIso = until === '' ? undefined : localInputToIso(until);
    const local: Fields = {};
    if (sinceIso === null) local.since = since === '' ? t('fielderror.required') : t('controls.recover_time');
    if (untilIso === null) local.until = t('controls.recover_time');
    if (local.since || local.until) {
      showErrors(local, null);
      return;
    }
    showErrors({}, null);
    recover.mutate(
      { id: endpointId, since: sinceIso!, until: untilIso ?? undefined },
      {
        onSuccess: (count) => {
          announce(count === 0 ? t('controls.recovered_none') : plural('controls.recovered', count));
          onDone();
        },
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const found = recoverErrors(err, t);
          showErrors(found.fields, found.general);
        },
      },
    );
  }

  return (
    <dialog
      ref={ref}
      className="dialog recover-dialog"
      aria-labelledby={titleId}
      aria-describedby={introId}
      onCancel={(event) => {
        event.preventDefault();
        if (!recover.isPending) onDone();
      }}
    >
      <h2 id={titleId}>{t('controls.recover')}</h2>
      <form onSubmit={submit} noValidate>
        <p id={introId}>{t('controls.recover_intro')}</p>
        {general && (
          <p className="notice notice-error" role="alert">
            {general}
          </p>
        )}
        <div className="recover-period">
          <Field id="recover-since" label={t('controls.recover_since')} error={errors.since}>
            {(control) => (
              <input
                {...control}
                ref={sinceRef}
                type="datetime-local"
                name="since"
                required
                value={since}
                onChange={(event) => setSince(event.target.value)}
              />
            )}
          </Field>
          <Field
            id="recover-until"
            label={t('controls.recover_until')}
            hint={t('controls.recover_until_hint')}
            error={errors.until}
          >
            {(control) => (
              <input
                {...control}
                ref={untilRef}
                type="datetime-local"
                name="until"
                value={until}
                onChange={(event) => setUntil(event.target.value)}
              />
            )}
          </Field>
        </div>
        <div className="dialog-actions">
          <button
            type="button"
            className="button secondary"
            onClick={() => !recover.isPending && onDone()}
            aria-disabled={recover.isPending || undefined}
          >
            {t('dialog.cancel')}
          </button>
          <button type="submit" className="button primary" aria-disabled={recover.isPending || undefined}>
            {recover.isPending ? t('controls.recover_sending') : t('controls.recover_confirm')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
