// Add or edit an endpoint. The API validates (https only, public address, known events, headers
// it may send); its reasons are shown in plain words next to the field (or header row) they
// concern, and the focus goes to the first thing to fix. Filters the form cannot show are kept.
import { Link } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { ApiError, SessionExpiredError } from '../../api/client';
import { plainFieldError } from '../../api/field-errors';
import type { MessageKey } from '../../app/i18n';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import {
  ALL_EVENTS,
  DEFAULT_EVENT_KINDS,
  type Endpoint,
  EVENT_KINDS,
  type EventKind,
  useSaveEndpoint,
} from './api';
import {
  ALERT_KINDS,
  type AlertKind,
  FilterChoices,
  joinFilters,
  type SeverityChoice,
  splitFilters,
} from './FilterChoices';
import { type HeaderRow, HeaderRows, headerRowsOf, headersOf } from './HeaderRows';
import { texts } from './texts';

const FIELDS = ['url', 'events', 'description'] as const;
type FieldName = (typeof FIELDS)[number];

interface EndpointFormProps {
  /** The endpoint to edit; none to add one. */
  endpoint: Endpoint | null;
  onDone: (endpoint: Endpoint) => void;
}

/** Errors of the header rows (by row key) and of the severity choices (by kind). */
interface PartErrors {
  headers: Record<number, string>;
  headersGroup?: string | undefined;
  filters: Partial<Record<AlertKind, string>>;
}
const noPartErrors = (): PartErrors => ({ headers: {}, filters: {} });

export function EndpointForm({ endpoint, onDone }: EndpointFormProps) {
  const { t } = useTexts(texts);
  const editId = endpoint?.id ?? null;
  const save = useSaveEndpoint(editId);
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [events, setEvents] = useState<Set<string>>(() => new Set(endpoint?.events ?? DEFAULT_EVENT_KINDS));
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [headerRows, setHeaderRows] = useState<HeaderRow[]>(() => headerRowsOf(endpoint?.headers));
  const [{ choice: initialChoice, other: otherFilters }] = useState(() => splitFilters(endpoint?.filters));
  const [severities, setSeverities] = useState<SeverityChoice>(initialChoice);
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const [partErrors, setPartErrors] = useState<PartErrors>(noPartErrors);
  const summaryRef = useRef<HTMLDivElement>(null);
  const urlRef = useRef<HTMLInputElement>(null);
  const eventsRef = useRef<HTMLFieldSetElement>(null);
  const descriptionRef = useRef<HTMLInputElement>(null);

  const allSelected = events.has(ALL_EVENTS);
  const alertKinds = ALERT_KINDS.filter((kind) => allSelected || events.has(kind));
  const eventWords = (kind: EventKind) =>
    kind === 'webhook.endpoint.paused' ? t('controls.event_paused') : t(`event.${kind}` as MessageKey);

  function toggle(kind: string, checked: boolean) {
    setEvents((current) => {
      const next = new Set(current);
      if (checked) next.add(kind);
      else next.delete(kind);
      return next;
    });
  }

  function showErrors(next: FormErrors<FieldName>, parts: PartErrors = noPartErrors()) {
    setErrors(next);
    setPartErrors(parts);
    const badFilter = ALERT_KINDS.find((kind) => parts.filters[kind]);
    const badRow = headerRows.find((row) => parts.headers[row.key]);
    // Move the focus to the first thing to fix (in the form's order), after the errors are rendered.
    requestAnimationFrame(() => {
      if (next.fields.url) urlRef.current?.focus();
      else if (next.fields.events) eventsRef.current?.querySelector('input')?.focus();
      else if (badFilter)
        document.querySelector<HTMLElement>(`#filter-${badFilter.replaceAll('.', '-')} input`)?.focus();
      else if (next.fields.description) descriptionRef.current?.focus();
      else if (badRow) document.getElementById(`header-${badRow.key}-name`)?.focus();
      else summaryRef.current?.focus();
    });
  }

  /** The server's refusals of a header name, in the section's words (either language's message). */
  function headerError(message: string, name: string): string | null {
    if (/belongs to HTTP|thuộc về chính HTTP/.test(message))
      return t('controls.header_reserved_http', { name });
    if (/Furrow sets and signs|do Furrow tự đặt/.test(message))
      return t('controls.header_reserved_own', { name });
    if (/given twice|bị lặp lại/.test(message)) return t('controls.header_duplicate');
    return null;
  }

  /** The server's refusal: header problems go to their row (`headers.<name>`), the rest to fields. */
  function showServerErrors(err: unknown) {
    const parts = noPartErrors();
    let rest = err;
    if (err instanceof ApiError && err.fieldErrors.length > 0) {
      const others = [];
      for (const fieldError of err.fieldErrors) {
        if (fieldError.field === 'headers') {
          parts.headersGroup ??= plainFieldError(fieldError, t);
        } else if (fieldError.field.startsWith('headers.')) {
          const name = fieldError.field.slice('headers.'.length);
          const row = headerRows.find((r) => r.name.trim() === name);
          const text = headerError(fieldError.message, name) ?? plainFieldError(fieldError, t);
          if (row) parts.headers[row.key] ??= text;
          else parts.headersGroup ??= text;
        } else others.push(fieldError);
      }
      rest = others.length === 0 ? null : new ApiError(err.status, err.message, others, err.code);
    }
    showErrors(rest === null ? noErrors() : formErrors(rest, FIELDS, t), parts);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    const selected: EventKind[] = allSelected ? [ALL_EVENTS] : EVENT_KINDS.filter((kind) => events.has(kind));
    const parts = noPartErrors();
    for (const kind of alertKinds) {
      if (!(kind in otherFilters) && severities[kind].length === 0) {
        parts.filters[kind] = t('controls.severity_required');
      }
    }
    for (const row of headerRows) {
      if (row.name.trim() === '' && row.value !== '')
        parts.headers[row.key] = t('controls.header_name_required');
    }
    const fields: FormErrors<FieldName>['fields'] =
      selected.length === 0 ? { events: t('form.events_required') } : {};
    if (fields.events || Object.keys(parts.filters).length > 0 || Object.keys(parts.headers).length > 0) {
      showErrors({ fields, general: [] }, parts);
      return;
    }
    setErrors(noErrors());
    setPartErrors(noPartErrors());
    save.mutate(
      {
        url: url.trim(),
        events: selected,
        description: description.trim(),
        // The whole set each time: a removed header is removed.
        headers: headersOf(headerRows),
        filters: joinFilters(severities, otherFilters),
      },
      {
        onSuccess: onDone,
        onError: (err) => {
          if (!(err instanceof SessionExpiredError)) showServerErrors(err);
        },
      },
    );
  }

  const hasFieldErrors =
    Object.keys(errors.fields).length > 0 ||
    Object.keys(partErrors.headers).length > 0 ||
    partErrors.headersGroup !== undefined ||
    Object.keys(partErrors.filters).length > 0;

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
                <span className="check-title">{eventWords(kind)}</span>
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

        <FilterChoices
          kinds={alertKinds}
          choice={severities}
          onChange={setSeverities}
          other={otherFilters}
          errors={partErrors.filters}
        />

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

        <HeaderRows
          rows={headerRows}
          onChange={setHeaderRows}
          errors={partErrors.headers}
          groupError={partErrors.headersGroup}
        />

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
