// Add or edit an endpoint. The API validates (https only, public address, known events); its
// reasons are shown in plain words next to the field they concern, and the focus goes to the
// first thing to fix.
import { Link } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { type MessageKey, useI18n } from '../../app/i18n';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ALL_EVENTS, type Endpoint, EVENT_KINDS, type EventKind, useSaveEndpoint } from './api';

const FIELDS = ['url', 'events', 'description'] as const;
type FieldName = (typeof FIELDS)[number];

interface EndpointFormProps {
  /** The endpoint to edit; none to add one. */
  endpoint: Endpoint | null;
  onDone: (endpoint: Endpoint) => void;
}

export function EndpointForm({ endpoint, onDone }: EndpointFormProps) {
  const { t } = useI18n();
  const editId = endpoint?.id ?? null;
  const save = useSaveEndpoint(editId);
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [events, setEvents] = useState<Set<string>>(() => new Set(endpoint?.events ?? EVENT_KINDS));
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const summaryRef = useRef<HTMLDivElement>(null);
  const urlRef = useRef<HTMLInputElement>(null);
  const eventsRef = useRef<HTMLFieldSetElement>(null);
  const descriptionRef = useRef<HTMLInputElement>(null);

  const allSelected = events.has(ALL_EVENTS);

  function toggle(kind: string, checked: boolean) {
    setEvents((current) => {
      const next = new Set(current);
      if (checked) next.add(kind);
      else next.delete(kind);
      return next;
    });
  }

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    // Move the focus to the first thing to fix, after the errors are rendered.
    requestAnimationFrame(() => {
      if (next.fields.url) urlRef.current?.focus();
      else if (next.fields.events) eventsRef.current?.querySelector('input')?.focus();
      else if (next.fields.description) descriptionRef.current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    const selected: EventKind[] = allSelected ? [ALL_EVENTS] : EVENT_KINDS.filter((kind) => events.has(kind));
    if (selected.length === 0) {
      showErrors({ fields: { events: t('form.events_required') }, general: [] });
      return;
    }
    setErrors(noErrors());
    save.mutate(
      { url: url.trim(), events: selected, description: description.trim() },
      {
        onSuccess: onDone,
        onError: (err) => {
          if (!(err instanceof SessionExpiredError)) showErrors(formErrors(err, FIELDS, t));
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <section className="page narrow">
      <Link className="back" to="/webhooks">
        ← {t('detail.back')}
      </Link>
      <PageHeading>{t(editId === null ? 'form.add_title' : 'form.edit_title')}</PageHeading>
      <form onSubmit={submit} noValidate className="endpoint-form">
        {(errors.general.length > 0 || hasFieldErrors) && (
          <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
            {errors.general.length > 0 ? (
              errors.general.map((message) => <p key={message}>{message}</p>)
            ) : (
              <p>{t('error.fix_fields')}</p>
            )}
          </div>
        )}

        <Field id="endpoint-url" label={t('form.url')} hint={t('form.url_hint')} error={errors.fields.url}>
          {(control) => (
            <input
              {...control}
              ref={urlRef}
              name="url"
              type="url"
              inputMode="url"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              placeholder="https://"
              required
              value={url}
              onChange={(event) => setUrl(event.target.value)}
            />
          )}
        </Field>

        <fieldset
          ref={eventsRef}
          className={`field events-field${errors.fields.events ? ' invalid' : ''}`}
          aria-describedby={errors.fields.events ? 'endpoint-events-error' : undefined}
        >
          <legend>{t('form.events')}</legend>
          <label className="check">
            <input
              type="checkbox"
              name="events"
              value={ALL_EVENTS}
              checked={allSelected}
              onChange={(event) => toggle(ALL_EVENTS, event.target.checked)}
            />
            <span>
              <span className="check-title">{t('event.*')}</span>
              <code>*</code>
            </span>
          </label>
          {EVENT_KINDS.map((kind) => (
            <label className="check" key={kind}>
              <input
                type="checkbox"
                name="events"
                value={kind}
                checked={allSelected || events.has(kind)}
                disabled={allSelected}
                onChange={(event) => toggle(kind, event.target.checked)}
              />
              <span>
                <span className="check-title">{t(`event.${kind}` as MessageKey)}</span>
                <code>{kind}</code>
              </span>
            </label>
          ))}
          {errors.fields.events && (
            <p id="endpoint-events-error" className="field-error">
              {errors.fields.events}
            </p>
          )}
        </fieldset>

        <Field
          id="endpoint-description"
          label={t('form.description')}
          hint={t('form.description_hint')}
          error={errors.fields.description}
        >
          {(control) => (
            <input
              {...control}
              ref={descriptionRef}
              name="description"
              maxLength={500}
              value={description}
              onChange={(event) => setDescription(event.target.value)}
            />
          )}
        </Field>

        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
            {save.isPending ? t('form.saving') : t(editId === null ? 'form.create' : 'form.save')}
          </button>
          {editId === null ? (
            <Link className="button secondary" to="/webhooks">
              {t('form.cancel')}
            </Link>
          ) : (
            <Link className="button secondary" to="/webhooks/$id" params={{ id: editId }}>
              {t('form.cancel')}
            </Link>
          )}
        </div>
      </form>
    </section>
  );
}
