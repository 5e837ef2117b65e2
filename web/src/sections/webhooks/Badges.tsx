// Small labels shared by the list, the detail page and the log.
import { isMessageKey, useI18n } from '../../app/i18n';
import type { DeliveryStatus, Endpoint } from './api';

export function EndpointStatusBadge({ status }: { status: Endpoint['status'] }) {
  const { t } = useI18n();
  return (
    <span className={`badge badge-${status}`}>
      {t(status === 'paused' ? 'status.paused' : 'status.active')}
    </span>
  );
}

export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  const { t } = useI18n();
  const key = `delivery.${status}`;
  return <span className={`badge badge-${status}`}>{isMessageKey(key) ? t(key) : status}</span>;
}

/** Why an endpoint is paused, in words. */
export function usePausedReason(): (endpoint: Endpoint) => string {
  const { t, plural } = useI18n();
  return (endpoint) => {
    const reason = endpoint.paused_reason ?? '';
    if (reason === '' || /fail/i.test(reason)) {
      return plural('paused.consecutive_failures', Math.max(endpoint.consecutive_failures, 1));
    }
    if (reason === 'manual' || reason === 'owner') return t('paused.manual');
    if (reason === 'gone') return t('paused.gone');
    return t('paused.other', { reason });
  };
}

export function EventList({ events }: { events: string[] }) {
  const { t } = useI18n();
  return (
    <ul className="events">
      {events.map((event) => {
        const key = `event.${event}`;
        return (
          <li key={event}>
            {event === '*' ? (
              <span className="event-all">{t('event.*')}</span>
            ) : (
              <>
                <code>{event}</code>
                {isMessageKey(key) && <span className="event-description">{t(key)}</span>}
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}
