// The last 50 deliveries of an endpoint; each expands to its attempts and the exact request.
import { Fragment, useState } from 'react';
import { useI18n } from '../../app/i18n';
import { formatRelative, formatTime } from '../../ui/format';
import type { Attempt, Delivery } from './api';
import { DeliveryStatusBadge } from './Badges';

interface DeliveryLogProps {
  deliveries: Delivery[] | null;
  refreshing: boolean;
  /** An action is under way: its buttons wait (without losing the focus). */
  busy: boolean;
  onRedeliver: (delivery: Delivery) => void;
}

export function DeliveryLog({ deliveries, refreshing, busy, onRedeliver }: DeliveryLogProps) {
  const { t, language } = useI18n();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());

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
      {deliveries === null && (
        <p className="loading" role="status">
          {t('log.loading')}
        </p>
      )}
      {deliveries?.length === 0 && <p className="empty-inline">{t('log.empty')}</p>}
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
