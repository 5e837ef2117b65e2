// Alerts, newest first, active and resolved, with their acknowledgement: anyone of the farm may
// acknowledge. The list asks again every few seconds, so a new alert shows without a reload.
import { Link } from '@tanstack/react-router';
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { formatTime } from '../../ui/format';
import { describeError, Empty, ErrorState, Loading } from '../../ui/States';
import {
  ALERT_LIMIT,
  type Alert,
  type AlertFilters,
  type Device,
  type Rule,
  SEVERITIES,
  useAcknowledge,
  useAlerts,
} from './api';
import { formatValue, metricName, SeverityBadge, useCondition } from './parts';
import { texts } from './texts';

interface AlertsPanelProps {
  /** Only this device's alerts (its page); else every device, with a device filter. */
  device?: Device;
  /** Devices by id, to name them and link to their pages. */
  devices: Map<number, Device>;
  title?: string;
}

type Choice<T> = T | '';

export function AlertsPanel({ device, devices, title }: AlertsPanelProps) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [status, setStatus] = useState<Choice<'active' | 'resolved'>>('');
  const [acked, setAcked] = useState<Choice<'yes' | 'no'>>('');
  const [severity, setSeverity] = useState<Choice<(typeof SEVERITIES)[number]>>('');
  const [deviceId, setDeviceId] = useState<Choice<string>>('');
  const filters: AlertFilters = {
    ...(status ? { status } : {}),
    ...(acked ? { acknowledged: acked === 'yes' } : {}),
    ...(severity ? { severity } : {}),
    ...(device ? { device_id: device.id } : deviceId ? { device_id: Number(deviceId) } : {}),
  };
  const filtered = Boolean(status || acked || severity || (!device && deviceId));
  const alerts = useAlerts(filters);
  const acknowledge = useAcknowledge();
  const [justAcked, setJustAcked] = useState<number | null>(null);

  // After an acknowledgement the button is gone: the focus goes to the line that replaced it, or to
  // the list's heading when the alert left the list (a "not yet acknowledged" filter).
  useEffect(() => {
    if (justAcked === null) return;
    const line = document.getElementById(`alert-${justAcked}-ack`);
    if (line) {
      line.focus();
      setJustAcked(null);
    } else if (alerts.data && !alerts.data.some((a) => a.id === justAcked)) {
      headingRef.current?.focus();
      setJustAcked(null);
    }
  }, [justAcked, alerts.data]);

  const describe = useDescribeAlert(devices);

  function onAcknowledge(alert: Alert) {
    if (acknowledge.isPending) return;
    acknowledge.mutate(alert.id, {
      onSuccess: () => {
        announce(t('alert.acked', { message: describe(alert) }));
        setJustAcked(alert.id);
      },
      onError: (err) => {
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  const data = alerts.data;
  return (
    <section className="panel alerts-panel" aria-labelledby={headingId}>
      <div className="panel-title">
        <h2 id={headingId} ref={headingRef} tabIndex={-1}>
          {title ?? t('alerts.title')}
        </h2>
        <p className="hint">{t('sensors.updates')}</p>
      </div>

      <fieldset className="alert-filters">
        <legend>{t('alerts.filters')}</legend>
        <FilterSelect label={t('alerts.filter.status')} value={status} onChange={setStatus}>
          <option value="active">{t('alert.active')}</option>
          <option value="resolved">{t('alert.resolved')}</option>
        </FilterSelect>
        <FilterSelect label={t('alerts.filter.ack')} value={acked} onChange={setAcked}>
          <option value="no">{t('alerts.filter.not_acked')}</option>
          <option value="yes">{t('alerts.filter.acked')}</option>
        </FilterSelect>
        <FilterSelect label={t('alerts.filter.severity')} value={severity} onChange={setSeverity}>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {t(`severity.${s}`)}
            </option>
          ))}
        </FilterSelect>
        {!device && devices.size > 1 && (
          <FilterSelect
            label={t('alerts.filter.device')}
            value={deviceId}
            onChange={setDeviceId}
            anyLabel={t('alerts.filter.any_device')}
          >
            {[...devices.values()].map((d) => (
              <option key={d.id} value={String(d.id)}>
                {d.name}
              </option>
            ))}
          </FilterSelect>
        )}
      </fieldset>

      {alerts.isPending && <Loading label={t('alerts.loading')} />}
      {alerts.isError && !data && <ErrorState error={alerts.error} onRetry={() => void alerts.refetch()} />}
      {data?.length === 0 &&
        (filtered ? (
          <p className="empty-inline">{t('alerts.empty_filtered')}</p>
        ) : (
          <Empty title={t('alerts.empty_title')}>
            <p>{t('alerts.empty_body')}</p>
          </Empty>
        ))}
      {data && data.length > 0 && (
        <ul className="alert-list" aria-busy={alerts.isFetching && alerts.isPlaceholderData}>
          {data.map((alert) => (
            <AlertItem
              key={alert.id}
              alert={alert}
              device={devices.get(alert.device_id) ?? device}
              busy={acknowledge.isPending}
              label={describe(alert)}
              onAcknowledge={() => onAcknowledge(alert)}
            />
          ))}
        </ul>
      )}
      {data && data.length >= ALERT_LIMIT && <p className="hint">{t('alerts.newest', { n: ALERT_LIMIT })}</p>}
    </section>
  );
}

function FilterSelect<T extends string>({
  label,
  value,
  onChange,
  anyLabel,
  children,
}: {
  label: string;
  value: T | '';
  onChange: (value: T | '') => void;
  anyLabel?: string;
  children: ReactNode;
}) {
  const { t } = useTexts(texts);
  const id = useId();
  return (
    <div className="filter">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as T | '')}>
        <option value="">{anyLabel ?? t('alerts.filter.any')}</option>
        {children}
      </select>
    </div>
  );
}

/** "Temperature: 38 °C on Greenhouse A sensor", to name an alert in a button's label or a message. */
function useDescribeAlert(devices: Map<number, Device>) {
  const { t, language } = useTexts(texts);
  return (alert: Alert) =>
    `${t('alert.title', {
      metric: metricName(alert.metric, language),
      value: formatValue(alert.value, alert.metric, language),
    })} ${t('alert.on', { device: devices.get(alert.device_id)?.name ?? alert.device_code })}`;
}

/** The text the API writes when the rule has none of its own (shown only when the rule has one). */
function defaultMessage(alert: Alert): string {
  const symbols: Record<string, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
  return `${alert.metric} on ${alert.device_code} is ${alert.value} (${symbols[alert.operator] ?? alert.operator} ${alert.threshold})`;
}

function AlertItem({
  alert,
  device,
  busy,
  label,
  onAcknowledge,
}: {
  alert: Alert;
  device: Device | undefined;
  busy: boolean;
  label: string;
  onAcknowledge: () => void;
}) {
  const { t, language } = useTexts(texts);
  const condition = useCondition();
  const active = alert.status === 'active';
  const ownMessage = alert.message !== defaultMessage(alert) ? alert.message : null;
  return (
    <li className={`alert-item ${active ? 'is-active' : 'is-resolved'} severity-${alert.severity}`}>
      <div className="alert-badges">
        <SeverityBadge severity={alert.severity} />
        <span className={`badge alert-${alert.status}`}>
          <span aria-hidden="true" className="status-mark">
            {active ? '!' : '✓'}
          </span>{' '}
          <span>{t(active ? 'alert.active' : 'alert.resolved')}</span>
        </span>
      </div>
      <h3 className="alert-title">
        {t('alert.title', {
          metric: metricName(alert.metric, language),
          value: formatValue(alert.value, alert.metric, language),
        })}{' '}
        <span className="alert-device">
          {t('alert.on_prefix')}{' '}
          {device ? (
            <Link to="/sensors/devices/$id" params={{ id: String(device.id) }}>
              {device.name}
            </Link>
          ) : (
            alert.device_code
          )}
        </span>
      </h3>
      {ownMessage && <p className="alert-message">{ownMessage}</p>}
      <p className="alert-facts">
        <span>
          {t('alert.rule', {
            condition: condition({
              metric: alert.metric,
              operator: alert.operator as Rule['operator'],
              threshold: alert.threshold,
            }),
          })}
        </span>
        <span>
          <time dateTime={alert.recorded_at}>
            {t('alert.measured', { time: formatTime(alert.recorded_at, language, 'minute') })}
          </time>
        </span>
        {alert.resolved_at && (
          <span>
            <time dateTime={alert.resolved_at}>
              {t('alert.resolved_at', { time: formatTime(alert.resolved_at, language, 'minute') })}
            </time>
          </span>
        )}
      </p>
      {alert.acknowledged_at ? (
        <p className="alert-acked" id={`alert-${alert.id}-ack`} tabIndex={-1}>
          <span aria-hidden="true">✓ </span>
          {alert.acknowledged_by_name
            ? t('alert.acked_by', {
                name: alert.acknowledged_by_name,
                time: formatTime(alert.acknowledged_at, language, 'minute'),
              })
            : t('alert.acked_someone', { time: formatTime(alert.acknowledged_at, language, 'minute') })}
        </p>
      ) : (
        <button
          type="button"
          className="button secondary"
          aria-label={t('alert.ack_label', { message: label })}
          aria-disabled={busy || undefined}
          onClick={onAcknowledge}
        >
          {t('alert.ack')}
        </button>
      )}
    </li>
  );
}
