// One device: whether it is reporting, a chart of each thing it measures over the chosen period,
// and its alerts. Owners edit or delete it here.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useId, useMemo, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatRelative, formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, ErrorState, Loading } from '../../ui/States';
import { AlertsPanel } from './AlertsPanel';
import {
  PERIODS,
  type Reading,
  useDeleteDevice,
  useDevice,
  useLatestReadings,
  useRules,
  useZones,
} from './api';
import { DeviceStatus } from './parts';
import { ReadingChart } from './ReadingChart';
import { useChartPeriod } from './SensorsSection';
import { texts } from './texts';

const NO_LIMITS: number[] = [];

export default function DevicePage() {
  const { id: idParam } = useParams({ strict: false }) as { id: string };
  const id = Number(idParam);
  const { t, plural, language } = useTexts(texts);
  const owner = useSession().session.user.role === 'owner';
  const announce = useAnnounce();
  const navigate = useNavigate();
  const remove = useDeleteDevice();
  const active = remove.isIdle || remove.isError;
  const device = useDevice(id, { active });
  const latest = useLatestReadings(id, { active });
  const rules = useRules();
  const zones = useZones();
  const { period, setPeriod } = useChartPeriod();
  const [confirming, setConfirming] = useState(false);
  const periodName = useId();

  // Its measurements: those it sent lately (newest first), then those its rules watch.
  const { metrics, newest } = useMemo(() => {
    const newest = new Map<string, Reading>();
    for (const reading of latest.data ?? [])
      if (!newest.has(reading.metric)) newest.set(reading.metric, reading);
    const metrics = [...newest.keys()];
    for (const rule of rules.data ?? []) {
      if (rule.device_id === id && !metrics.includes(rule.metric)) metrics.push(rule.metric);
    }
    return { metrics, newest };
  }, [latest.data, rules.data, id]);

  const deviceData = device.data;
  // The limits drawn on each chart: the rules aimed at this device, or at its zone.
  const zoneId = deviceData?.zone_id ?? null;
  const limits = useMemo(() => {
    const byMetric = new Map<string, number[]>();
    for (const rule of rules.data ?? []) {
      if (rule.device_id !== id && (rule.zone_id === null || rule.zone_id !== zoneId)) continue;
      byMetric.set(rule.metric, [...(byMetric.get(rule.metric) ?? []), rule.threshold]);
    }
    return byMetric;
  }, [rules.data, id, zoneId]);
  const asMap = useMemo(() => new Map(deviceData ? [[deviceData.id, deviceData]] : []), [deviceData]);

  const back = (
    <Link className="back" to="/sensors">
      ← {t('device.back')}
    </Link>
  );

  const data = device.data;
  if (!data) {
    return (
      <section className="page">
        {back}
        {device.isError ? (
          <>
            <PageHeading>{t('sensors.title')}</PageHeading>
            <ErrorState
              error={device.error}
              notFound={t('device.not_found')}
              onRetry={() => void device.refetch()}
            />
          </>
        ) : (
          <Loading label={t('device.loading')} />
        )}
      </section>
    );
  }

  function onDelete(name: string) {
    remove.mutate(id, {
      onSuccess: () => {
        announce(t('device.deleted', { name }));
        void navigate({ to: '/sensors' });
      },
      onError: (err) => {
        setConfirming(false);
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  const zone = data.zone_id === null ? null : zones.data?.find((z) => z.id === data.zone_id);
  const minutes = Math.round(data.heartbeat_timeout_seconds / 60);

  return (
    <section className="page">
      {back}
      <div className="page-title">
        <PageHeading className="device-heading">{data.name}</PageHeading>
        <DeviceStatus status={data.status} />
      </div>
      {device.isError && (
        <ErrorState
          error={device.error}
          notFound={t('device.not_found')}
          onRetry={() => void device.refetch()}
        />
      )}

      {owner && (
        <div className="toolbar">
          <Link className="button secondary" to="/sensors/devices/$id/edit" params={{ id: String(id) }}>
            {t('device.edit')}
          </Link>
          <button type="button" className="button danger-outline" onClick={() => setConfirming(true)}>
            {t('device.delete')}
          </button>
        </div>
      )}

      <section className="panel settings" aria-labelledby="device-details">
        <h2 id="device-details">{t('device.details')}</h2>
        <dl className="facts">
          <div>
            <dt>{t('col.heard')}</dt>
            <dd>
              {data.last_heartbeat ? (
                <>
                  {formatRelative(data.last_heartbeat, language)}
                  <span className="when">
                    <time dateTime={data.last_heartbeat}>{formatTime(data.last_heartbeat, language)}</time>
                  </span>
                </>
              ) : (
                t('device.never')
              )}
            </dd>
          </div>
          <div>
            <dt>{t('device.code_label')}</dt>
            <dd>
              <code>{data.code}</code>
            </dd>
          </div>
          {data.dev_eui && (
            <div>
              <dt>{t('device.dev_eui')}</dt>
              <dd>
                <code>{data.dev_eui}</code>
              </dd>
            </div>
          )}
          <div>
            <dt>{t('col.zone')}</dt>
            <dd>{zone?.name ?? t('device.no_zone')}</dd>
          </div>
          <div>
            <dt>{t('device.timeout')}</dt>
            <dd>{plural('device.minutes', Math.max(minutes, 1))}</dd>
          </div>
        </dl>
      </section>

      <section className="panel" aria-labelledby="readings-title">
        <div className="panel-title">
          <h2 id="readings-title">{t('readings.title')}</h2>
        </div>
        <fieldset className="periods">
          <legend>{t('period.label')}</legend>
          {PERIODS.map((p) => (
            <label key={p.id} className={`period${period === p.id ? ' chosen' : ''}`}>
              <input
                type="radio"
                name={periodName}
                value={p.id}
                checked={period === p.id}
                onChange={() => setPeriod(p.id)}
              />
              {t(`period.${p.id}`)}
            </label>
          ))}
        </fieldset>
        {latest.isPending && <Loading label={t('readings.loading')} />}
        {latest.isError && !latest.data && (
          <ErrorState error={latest.error} onRetry={() => void latest.refetch()} />
        )}
        {latest.data && metrics.length === 0 && <p className="empty-inline">{t('readings.none')}</p>}
        {metrics.map((metric) => (
          <ReadingChart
            key={metric}
            deviceId={id}
            metric={metric}
            period={period}
            latest={newest.get(metric)}
            limits={limits.get(metric) ?? NO_LIMITS}
            active={active}
          />
        ))}
      </section>

      <AlertsPanel device={data} devices={asMap} title={t('device.alerts')} />

      {confirming && (
        <ConfirmDialog
          title={t('device.delete_title')}
          confirmLabel={t('device.delete_confirm')}
          tone="danger"
          busy={remove.isPending}
          onConfirm={() => onDelete(data.name)}
          onCancel={() => setConfirming(false)}
        >
          <p>{t('device.delete_body', { name: data.name })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
