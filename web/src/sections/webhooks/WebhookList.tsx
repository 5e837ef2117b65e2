// The Webhooks page: every endpoint with its events, status and last delivery. The list looks
// again every 10 seconds while it is open.
import { Link } from '@tanstack/react-router';
import { useTexts } from '../../app/texts';
import { formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type Endpoint, useEndpoints, useLastDelivery } from './api';
import { DeliveryStatusBadge, EndpointStatusBadge, EventList, usePausedReason } from './Badges';
import { percentOf } from './EndpointStats';
import { texts } from './texts';

export default function WebhookList() {
  const { t } = useTexts(texts);
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
      <p className="events-link">
        <Link to="/webhooks/events">{t('insight.list.events_link')}</Link>
      </p>

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
              <th scope="col">{t('insight.list.col')}</th>
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
  const { t, language, plural } = useTexts(texts);
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
      <td data-label={t('insight.list.col')} className="day-stats">
        <DayStatsText stats={endpoint.stats_24h} />
      </td>
    </tr>
  );
}

/** The share of the last day's finished deliveries that went through, in words. */
function DayStatsText({ stats }: { stats: Endpoint['stats_24h'] }) {
  const { t } = useTexts(texts);
  if (stats === undefined) return <span className="muted">—</span>;
  if (stats.success_rate === null) return <span className="muted">{t('insight.list.none')}</span>;
  const rate = percentOf(stats.success_rate);
  return (
    <>
      <span className={rate < 90 ? 'day-rate day-rate-low' : 'day-rate'}>
        {t('insight.list.rate', { rate })}
      </span>
      <span className="day-counts">
        {t('insight.list.counts', { delivered: stats.delivered, failed: stats.failed })}
      </span>
    </>
  );
}
