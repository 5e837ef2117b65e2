// The Webhooks page: every endpoint with its events, status and last delivery. The list looks
// again every 10 seconds while it is open.
import { Link } from '@tanstack/react-router';
import { useI18n } from '../../app/i18n';
import { formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type Endpoint, useEndpoints, useLastDelivery } from './api';
import { DeliveryStatusBadge, EndpointStatusBadge, EventList, usePausedReason } from './Badges';

export default function WebhookList() {
  const { t } = useI18n();
  const endpoints = useEndpoints();
  const add = (
    <Link className="button primary" to="/webhooks/new">
      {t('webhooks.add')}
    </Link>
  );

  return (
    <section className="page">
      <div className="page-title">
        <PageHeading>{t('webhooks.title')}</PageHeading>
        {add}
      </div>
      <p className="lead">{t('webhooks.intro')}</p>

      {endpoints.isPending && <Loading label={t('webhooks.loading')} />}
      {endpoints.isError && <ErrorState error={endpoints.error} onRetry={() => void endpoints.refetch()} />}
      {endpoints.data?.length === 0 && (
        <Empty title={t('webhooks.empty_title')}>
          <p>{t('webhooks.empty_body')}</p>
          {add}
        </Empty>
      )}
      {endpoints.data && endpoints.data.length > 0 && (
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
            {endpoints.data.map((endpoint) => (
              <EndpointRow key={endpoint.id} endpoint={endpoint} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function EndpointRow({ endpoint }: { endpoint: Endpoint }) {
  const { t, language, plural } = useI18n();
  const pausedReason = usePausedReason();
  const { last } = useLastDelivery(endpoint);
  return (
    <tr>
      <th scope="row" data-label={t('col.url')}>
        <Link className="url" to="/webhooks/$id" params={{ id: endpoint.id }}>
          {endpoint.url}
        </Link>
        {endpoint.description && <span className="description">{endpoint.description}</span>}
      </th>
      <td data-label={t('col.events')}>
        <EventList events={endpoint.events} />
      </td>
      <td data-label={t('col.status')}>
        <EndpointStatusBadge status={endpoint.status} />
        {endpoint.status === 'paused' && (
          <span className="why">
            {pausedReason(endpoint)} {endpoint.held_count > 0 && plural('held.count', endpoint.held_count)}
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
}
