// Add or edit an endpoint. The API validates (https only, public address, known events) and its
// reasons are shown next to the field they concern.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ALL_EVENTS, ApiError, type Endpoint, EVENT_KINDS, type FieldError } from '../api';
import { type MessageKey, useI18n } from '../i18n';
import { followLink, hrefFor } from '../router';
import { useSession } from '../session';
import { PageHeading } from './PageHeading';

type FormProps =
  | { mode: 'create'; onDone: (endpoint: Endpoint) => void }
  | { mode: 'edit'; id: string; onDone: (endpoint: Endpoint) => void };

type FieldName = 'url' | 'events' | 'description';

interface FormErrors {
  fields: Partial<Record<FieldName, string>>;
  /** Errors that name no field of this form, and failures of the call itself. */
  general: string[];
}

const NO_ERRORS: FormErrors = { fields: {}, general: [] };

function fieldOf(error: FieldError): FieldName | null {
  const root = error.field.split(/[.[]/)[0];
  return root === 'url' || root === 'events' || root === 'description' ? root : null;
}

export function EndpointForm(props: FormProps) {
  const { t } = useI18n();
  const { api, describeError } = useSession();
  const editId = props.mode === 'edit' ? props.id : null;
  const [loaded, setLoaded] = useState(props.mode === 'create');
  const [loadError, setLoadError] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<string>>(() => new Set(EVENT_KINDS));
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const summaryRef = useRef<HTMLDivElement>(null);
  const urlRef = useRef<HTMLInputElement>(null);
  const eventsRef = useRef<HTMLFieldSetElement>(null);
  const descriptionRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (editId === null) return;
    let cancelled = false;
    api
      .getEndpoint(editId)
      .then((endpoint) => {
        if (cancelled) return;
        setUrl(endpoint.url);
        setEvents(new Set(endpoint.events));
        setDescription(endpoint.description ?? '');
        setLoaded(true);
      })
      .catch((err) => {
        if (cancelled) return;
        const message =
          err instanceof ApiError && err.status === 404 ? t('error.not_found') : describeError(err);
        if (message) setLoadError(message);
      });
    return () => {
      cancelled = true;
    };
  }, [api, editId, describeError, t]);

  const allSelected = events.has(ALL_EVENTS);

  function toggle(kind: string, checked: boolean) {
    setEvents((current) => {
      const next = new Set(current);
      if (checked) next.add(kind);
      else next.delete(kind);
      return next;
    });
  }

  function showErrors(next: FormErrors) {
    setErrors(next);
    // Move the focus to the first thing to fix, after the errors are rendered.
    requestAnimationFrame(() => {
      if (next.fields.url) urlRef.current?.focus();
      else if (next.fields.events) eventsRef.current?.querySelector('input')?.focus();
      else if (next.fields.description) descriptionRef.current?.focus();
      else summaryRef.current?.focus();
    });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const selected = allSelected ? [ALL_EVENTS] : EVENT_KINDS.filter((kind) => events.has(kind));
    if (selected.length === 0) {
      showErrors({ fields: { events: t('form.events_required') }, general: [] });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    const input = { url: url.trim(), events: selected, description: description.trim() };
    try {
      if (editId === null) {
        props.onDone(await api.createEndpoint(input));
      } else {
        await api.updateEndpoint(editId, input);
        props.onDone(await api.getEndpoint(editId));
      }
    } catch (err) {
      if (err instanceof ApiError && err.fieldErrors.length > 0) {
        const next: FormErrors = { fields: {}, general: [] };
        for (const fieldError of err.fieldErrors) {
          const field = fieldOf(fieldError);
          if (field && !next.fields[field]) next.fields[field] = fieldError.message;
          else if (!field) next.general.push(fieldError.message);
        }
        showErrors(next);
      } else {
        const message = describeError(err);
        if (message) showErrors({ fields: {}, general: [message] });
      }
    } finally {
      setBusy(false);
    }
  }

  const cancelRoute =
    editId === null ? ({ page: 'webhooks' } as const) : { page: 'endpoint' as const, id: editId };
  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <section className="page narrow">
      <a className="back" href={hrefFor({ page: 'webhooks' })} onClick={followLink({ page: 'webhooks' })}>
        ← {t('detail.back')}
      </a>
      <PageHeading>{t(editId === null ? 'form.add_title' : 'form.edit_title')}</PageHeading>
      {loadError && (
        <p className="notice notice-error" role="alert">
          {loadError}
        </p>
      )}
      {!loaded && !loadError && (
        <p className="loading" role="status">
          {t('detail.loading')}
        </p>
      )}
      {loaded && (
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

          <div className={`field${errors.fields.url ? ' invalid' : ''}`}>
            <label htmlFor="endpoint-url">{t('form.url')}</label>
            <input
              id="endpoint-url"
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
              aria-invalid={errors.fields.url ? true : undefined}
              aria-describedby={
                errors.fields.url ? 'endpoint-url-error endpoint-url-hint' : 'endpoint-url-hint'
              }
              onChange={(event) => setUrl(event.target.value)}
            />
            <p id="endpoint-url-hint" className="hint">
              {t('form.url_hint')}
            </p>
            {errors.fields.url && (
              <p id="endpoint-url-error" className="field-error">
                {errors.fields.url}
              </p>
            )}
          </div>

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

          <div className={`field${errors.fields.description ? ' invalid' : ''}`}>
            <label htmlFor="endpoint-description">{t('form.description')}</label>
            <input
              id="endpoint-description"
              ref={descriptionRef}
              name="description"
              maxLength={500}
              value={description}
              aria-invalid={errors.fields.description ? true : undefined}
              aria-describedby={
                errors.fields.description
                  ? 'endpoint-description-error endpoint-description-hint'
                  : 'endpoint-description-hint'
              }
              onChange={(event) => setDescription(event.target.value)}
            />
            <p id="endpoint-description-hint" className="hint">
              {t('form.description_hint')}
            </p>
            {errors.fields.description && (
              <p id="endpoint-description-error" className="field-error">
                {errors.fields.description}
              </p>
            )}
          </div>

          <div className="form-actions">
            <button type="submit" className="button primary" disabled={busy}>
              {busy ? t('form.saving') : t(editId === null ? 'form.create' : 'form.save')}
            </button>
            <a className="button secondary" href={hrefFor(cancelRoute)} onClick={followLink(cancelRoute)}>
              {t('form.cancel')}
            </a>
          </div>
        </form>
      )}
    </section>
  );
}
