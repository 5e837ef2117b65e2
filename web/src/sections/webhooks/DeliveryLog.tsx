// The last 50 deliveries of an endpoint, narrowed by the owner's choices (result, event, days);
// each expands to its attempts and the exact request. The choices live in the page's address, so
// the polled log (api.ts, useEndpoint) asks for them too.
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { Fragment, useState } from 'react';
import { isMessageKey, useI18n } from '../../app/i18n';
import { useTexts } from '../../app/texts';
import { formatRelative, formatTime } from '../../ui/format';
import {
  type Attempt,
  DELIVERY_STATUSES,
  type Delivery,
  type DeliveryFilters,
  hasFilters,
  useEventTypes,
  useLogFilters,
} from './api';
import { DeliveryStatusBadge } from './Badges';
import { texts } from './texts';

interface DeliveryLogProps {
  deliveries: Delivery[] | null;
  refreshing: boolean;
  /** An action is under way: its buttons wait (without losing the focus). */
  busy: boolean;
  onRedeliver: (delivery: Delivery) => void;
}

export function DeliveryLog({ deliveries, refreshing, busy, onRedeliver }: DeliveryLogProps) {
  const { t, language } = useI18n();
  const own = useTexts(texts);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const filters = useLogFilters();
  const filtered = hasFilters(filters);
  // Once choices were made on this page, clearing them is said too.
  const [chosen, setChosen] = useState(filtered);
  if (filtered && !chosen) setChosen(true);

  function toggle(id: string) {
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  return (
    <section className="panel delivery-log" aria-labelledby="log-title" aria-busy={refreshing}>
      <div className="panel-title">
        <h2 id="log-title">{t('log.title')}</h2>
      </div>
      <p className="hint">{t('log.intro')}</p>
      <LogFilters filters={filters} />
      {/* Said once the log has answered a change of choices (polls that change nothing stay quiet). */}
      <p className="filter-result" role="status">
        {deliveries !== null &&
          (filtered
            ? deliveries.length === 0
              ? own.t('insight.filter.none_match')
              : own.plural('insight.filter.match', deliveries.length)
            : chosen && own.t('insight.filter.all_shown'))}
      </p>
      {deliveries === null && (
        <p className="loading" role="status">
          {t('log.loading')}
        </p>
      )}
      {deliveries?.length === 0 && !filtered && <p className="empty-inline">{t('log.empty')}</p>}
      {deliveries?.length === 0 && filtered && <ClearFilters />}
      {deliveries && deliveries.length > 0 && (
        <table className="data-table deliveries">
          <caption className="visually-hidden">{t('log.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('log.col.event')}</th>
              <th scope="col">{t('log.col.time')}</th>
              <th scope="col">{t('log.col.status')}</th>
              <th scope="col">{t('log.col.attempts')}</th>
              <th scope="col">{t('log.col.next')}</th>
              <th scope="col">{t('log.col.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => {
              const open = expanded.has(delivery.id);
              const detailsId = `delivery-${delivery.id}`;
              return (
                <Fragment key={delivery.id}>
                  <tr className={open ? 'open' : undefined} data-delivery-id={delivery.id}>
                    <th scope="row" data-label={t('log.col.event')}>
                      <code>{delivery.event_type}</code>
                    </th>
                    <td data-label={t('log.col.time')}>
                      <time dateTime={delivery.created_at}>{formatTime(delivery.created_at, language)}</time>
                    </td>
                    <td data-label={t('log.col.status')}>
                      <DeliveryStatusBadge status={delivery.status} />
                    </td>
                    <td data-label={t('log.col.attempts')}>{delivery.attempt_count}</td>
                    <td data-label={t('log.col.next')}>
                      {delivery.next_attempt_at ? (
                        <time
                          dateTime={delivery.next_attempt_at}
                          title={formatTime(delivery.next_attempt_at, language)}
                        >
                          {formatRelative(delivery.next_attempt_at, language)}
                        </time>
                      ) : (
                        <span className="muted">{t('log.no_retry')}</span>
                      )}
                    </td>
                    <td data-label={t('log.col.actions')} className="row-actions">
                      <button
                        type="button"
                        className="button small secondary"
                        aria-expanded={open}
                        aria-controls={detailsId}
                        aria-label={t('log.show_label', { id: delivery.id })}
                        onClick={() => toggle(delivery.id)}
                      >
                        {t('log.show')}
                      </button>
                      {/* A queued delivery is going out anyway; the API redelivers finished ones. */}
                      {(delivery.status === 'succeeded' || delivery.status === 'failed') && (
                        <button
                          type="button"
                          className="button small secondary"
                          aria-label={t('log.redeliver_label', { id: delivery.id })}
                          aria-disabled={busy || undefined}
                          onClick={() => onRedeliver(delivery)}
                        >
                          {t('log.redeliver')}
                        </button>
                      )}
                    </td>
                  </tr>
                  {open && (
                    <tr className="details-row">
                      <td colSpan={6} id={detailsId}>
                        <DeliveryDetails delivery={delivery} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Writes the log's choices into the page's address (replacing it: Back leaves the page, not a choice). */
function useSetFilters(): (filters: DeliveryFilters) => void {
  const navigate = useNavigate();
  const { id } = useParams({ strict: false }) as { id: string };
  const search = useSearch({ strict: false }) as Record<string, unknown>;
  return (filters) => {
    const { status: _s, event: _e, since: _f, until: _u, ...rest } = search;
    void navigate({
      to: '/webhooks/$id',
      params: { id },
      search: { ...rest, ...filters } as Record<string, unknown>,
      replace: true,
      resetScroll: false,
    });
  };
}

/** After the choices are cleared their button is gone: the focus goes to the first choice. */
function focusFirstFilter() {
  requestAnimationFrame(() => document.getElementById('log-filter-status')?.focus());
}

function ClearFilters() {
  const { t } = useTexts(texts);
  const setFilters = useSetFilters();
  return (
    <div className="filter-empty">
      <button
        type="button"
        className="button secondary small"
        onClick={() => {
          setFilters({});
          focusFirstFilter();
        }}
      >
        {t('insight.filter.clear')}
      </button>
    </div>
  );
}

function LogFilters({ filters }: { filters: DeliveryFilters }) {
  const { t } = useTexts(texts);
  const setFilters = useSetFilters();
  const eventTypes = useEventTypes();
  // The catalogue's kinds (descriptions in the app's language), and test messages.
  const events = [
    ...(eventTypes.data ?? []).map((e) => ({ type: e.type, description: e.description })),
    { type: 'webhook.test', description: '' },
  ].filter((e, i, all) => all.findIndex((o) => o.type === e.type) === i);
  if (filters.event && !events.some((e) => e.type === filters.event)) {
    events.push({ type: filters.event, description: '' });
  }
  const eventLabel = ({ type, description }: { type: string; description: string }) => {
    const key = `event.${type}`;
    return isMessageKey(key) ? t(key) : description || type;
  };

  const set = (change: Partial<DeliveryFilters>) => {
    const next: DeliveryFilters = { ...filters, ...change };
    // A range given back to front is read as meant: both days included.
    if (next.since && next.until && next.since > next.until) {
      [next.since, next.until] = [next.until, next.since];
    }
    for (const key of Object.keys(next) as (keyof DeliveryFilters)[]) {
      if (next[key] === undefined || next[key] === '') delete next[key];
    }
    setFilters(next);
  };

  return (
    <form className="log-filters" aria-labelledby="log-filters-title" onSubmit={(e) => e.preventDefault()}>
      <h3 id="log-filters-title">{t('insight.filter.title')}</h3>
      <div className="log-filter-grid">
        <div className="field">
          <label htmlFor="log-filter-status">{t('insight.filter.status')}</label>
          <select
            id="log-filter-status"
            value={filters.status ?? ''}
            onChange={(e) => set({ status: (e.target.value || undefined) as DeliveryFilters['status'] })}
          >
            <option value="">{t('insight.filter.any_status')}</option>
            {DELIVERY_STATUSES.map((status) => (
              <option key={status} value={status}>
                {t(`delivery.${status}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="log-filter-event">{t('insight.filter.event')}</label>
          <select
            id="log-filter-event"
            value={filters.event ?? ''}
            onChange={(e) => set({ event: e.target.value || undefined })}
          >
            <option value="">{t('insight.filter.any_event')}</option>
            {events.map((event) => (
              <option key={event.type} value={event.type}>
                {eventLabel(event)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="log-filter-since">{t('insight.filter.since')}</label>
          <input
            id="log-filter-since"
            type="date"
            value={filters.since ?? ''}
            onChange={(e) => set({ since: e.target.value || undefined })}
          />
        </div>
        <div className="field">
          <label htmlFor="log-filter-until">{t('insight.filter.until')}</label>
          <input
            id="log-filter-until"
            type="date"
            value={filters.until ?? ''}
            onChange={(e) => set({ until: e.target.value || undefined })}
          />
        </div>
      </div>
      {hasFilters(filters) && (
        <button
          type="button"
          className="button secondary small"
          onClick={() => {
            setFilters({});
            focusFirstFilter();
          }}
        >
          {t('insight.filter.clear')}
        </button>
      )}
    </form>
  );
}

function DeliveryDetails({ delivery }: { delivery: Delivery }) {
  const { t } = useI18n();
  const attempts = delivery.attempts ?? [];
  const headers = Object.entries(delivery.request?.headers ?? {});
  return (
    <div className="delivery-details">
      <p>
        {t('log.delivery_id')}: <code>{delivery.id}</code>
      </p>
      <h3>{t('log.attempts')}</h3>
      {attempts.length === 0 ? (
        <p className="muted">{t('log.no_attempts')}</p>
      ) : (
        <ol className="attempts">
          {attempts.map((attempt) => (
            <AttemptItem key={attempt.number} attempt={attempt} />
          ))}
        </ol>
      )}
      {delivery.request && (
        <>
          <h3>{t('log.request')}</h3>
          <h4>{t('log.headers')}</h4>
          {/* A list, not a table: long values wrap at phone width instead of pushing the page wide. */}
          <dl className="request-headers">
            {headers.map(([name, value]) => (
              <div key={name}>
                <dt>
                  <code>{name}</code>
                </dt>
                <dd>
                  <code>{value}</code>
                </dd>
              </div>
            ))}
          </dl>
          <h4>{t('log.body')}</h4>
          {/* Shown whole; the box takes the keyboard focus so long lines can be scrolled sideways. */}
          <section
            className="message-body"
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
            tabIndex={0}
            aria-label={t('log.body_label', { id: delivery.id })}
          >
            <pre className="code-block">{prettyJson(delivery.request.body)}</pre>
          </section>
        </>
      )}
    </div>
  );
}

function AttemptItem({ attempt }: { attempt: Attempt }) {
  const { t, language } = useI18n();
  const ok = attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300;
  return (
    <li className={`attempt ${ok ? 'attempt-ok' : 'attempt-failed'}`}>
      <p className="attempt-title">
        <strong>{t('log.attempt', { n: attempt.number })}</strong>{' '}
        <time dateTime={attempt.started_at}>{formatTime(attempt.started_at, language)}</time>
      </p>
      <dl className="facts compact">
        <div>
          <dt>{t('log.attempt_status')}</dt>
          <dd>{attempt.status_code ?? <span className="muted">{t('log.no_status')}</span>}</dd>
        </div>
        <div>
          <dt>{t('log.attempt_duration')}</dt>
          <dd>{attempt.duration_ms === null ? '—' : t('log.duration_ms', { n: attempt.duration_ms })}</dd>
        </div>
        {attempt.error && (
          <div>
            <dt>{t('log.attempt_error')}</dt>
            <dd className="error-text">{attempt.error}</dd>
          </div>
        )}
      </dl>
      {attempt.response_excerpt && (
        <>
          <p className="attempt-response-label">{t('log.attempt_response')}</p>
          <pre className="code-block">{attempt.response_excerpt}</pre>
        </>
      )}
    </li>
  );
}

function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
