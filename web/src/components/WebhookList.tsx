// The Webhooks page: every endpoint with its events, status and last delivery.
import { useCallback, useEffect, useState } from 'react';
import type { Delivery, Endpoint } from '../api';
import { useI18n } from '../i18n';
import { followLink, hrefFor } from '../router';
import { useSession } from '../session';
import { formatTime } from '../time';
import { DeliveryStatusBadge, EndpointStatusBadge, EventList, usePausedReason } from './Badges';
import { PageHeading } from './PageHeading';

type LastDelivery = Pick<Delivery, 'id' | 'event_type' | 'status' | 'created_at'> | null;

export function WebhookList() {
  const { t, language, plural } = useI18n();
  const { api, describeError } = useSession();
  const pausedReason = usePausedReason();
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [lastDeliveries, setLastDeliveries] = useState<Record<string, LastDelivery>>({});
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const list = await api.listEndpoints();
      setEndpoints(list);
      setError(null);
      // The newest delivery of each endpoint, when the list does not carry it already.
      const entries = await Promise.all(
        list.map(async (endpoint): Promise<[string, LastDelivery]> => {
          if (endpoint.last_delivery !== undefined) return [endpoint.id, endpoint.last_delivery];
          const deliveries = await api.listDeliveries(endpoint.id).catch(() => []);
          return [endpoint.id, deliveries[0] ?? null];
        }),
      );
      setLastDeliveries(Object.fromEntries(entries));
    } catch (err) {
      const message = describeError(err);
      if (message) setError(message);
    }
  }, [api, describeError]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="page">
      <div className="page-title">
        <PageHeading>{t('webhooks.title')}</PageHeading>
        <a className="button primary" href={hrefFor({ page: 'new' })} onClick={followLink({ page: 'new' })}>
          {t('webhooks.add')}
        </a>
      </div>
      <p className="lead">{t('webhooks.intro')}</p>

      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      {endpoints === null && !error && (
        <p className="loading" role="status">
          {t('webhooks.loading')}
        </p>
      )}
      {endpoints?.length === 0 && (
        <div className="empty">
          <h2>{t('webhooks.empty_title')}</h2>
          <p>{t('webhooks.empty_body')}</p>
          <a className="button primary" href={hrefFor({ page: 'new' })} onClick={followLink({ page: 'new' })}>
            {t('webhooks.add')}
          </a>
        </div>
      )}
      {endpoints && endpoints.length > 0 && (
        <table className="data-table endpoints">
          <caption className="visually-hidden">{t('webhooks.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.url')}</th>
              <th scope="col">{t('col.events')}</th>
              <th scope="col">{t('col.status')}</th>
              <th scope="col">{t('col.last_delivery')}</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map((endpoint) => {
              const last = lastDeliveries[endpoint.id];
              const route = { page: 'endpoint' as const, id: endpoint.id };
              return (
                <tr key={endpoint.id}>
                  <th scope="row" data-label={t('col.url')}>
                    <a className="url" href={hrefFor(route)} onClick={followLink(route)}>
                      {endpoint.url}
                    </a>
                    {endpoint.description && <span className="description">{endpoint.description}</span>}
                  </th>
                  <td data-label={t('col.events')}>
                    <EventList events={endpoint.events} />
                  </td>
                  <td data-label={t('col.status')}>
                    <EndpointStatusBadge status={endpoint.status} />
                    {endpoint.status === 'paused' && (
                      <span className="why">
                        {pausedReason(endpoint)}{' '}
                        {endpoint.held_count > 0 && plural('held.count', endpoint.held_count)}
                      </span>
                    )}
                  </td>
                  <td data-label={t('col.last_delivery')}>
                    {last === undefined ? (
                      <span className="muted">…</span>
                    ) : last === null ? (
                      <span className="muted">{t('last.none')}</span>
                    ) : (
                      <>
                        <DeliveryStatusBadge status={last.status} /> <code>{last.event_type}</code>
                        <time className="when" dateTime={last.created_at}>
                          {formatTime(last.created_at, language)}
                        </time>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
