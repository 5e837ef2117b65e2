// New devices (owners): devices a network server or broker sent data for that no device of the
// farm claims yet, with when they were last heard, how often, through what, and what they sent
// last. Adding one opens its form; dismissing one asks first (it comes back if it sends again).
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import type { Language } from '../../app/i18n';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatNumber, formatRelative, formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, Empty, ErrorState, Loading } from '../../ui/States';
import { type UnclaimedDevice, useDismissUnclaimed, useUnclaimed } from './api';
import { formatValue, metricName, OwnersOnly } from './parts';
import { type SensorsKey, texts } from './texts';

export default function NewDevicesPage() {
  const { t } = useTexts(texts);
  return (
    <OwnersOnly title={t('unclaimed.title')}>
      <NewDevices />
    </OwnersOnly>
  );
}

/** The network a device was heard through, by its product's name. */
export function sourceName(source: string, t: (key: SensorsKey) => string): string {
  if (source === 'chirpstack') return 'ChirpStack';
  if (source === 'tts') return 'The Things Stack';
  if (source === 'mqtt') return t('unclaimed.source_mqtt');
  return source;
}

/** The numbers in what a device sent last, named as the server names their readings (at most 8). */
export function lastValues(payload: unknown): { metric: string; value: number }[] {
  let data = payload;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      return [];
    }
  }
  const found: { metric: string; value: number }[] = [];
  const walk = (value: unknown, path: (string | number)[]) => {
    if (found.length >= 8) return;
    if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') {
      const metric = path
        .join('.')
        .toLowerCase()
        .replace(/[^a-z0-9_.]/g, '_');
      if (metric && !found.some((f) => f.metric === metric)) found.push({ metric, value: Number(value) });
    } else if (Array.isArray(value)) {
      value.forEach((inner, index) => {
        walk(inner, [...path, index]);
      });
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key]);
    }
  };
  walk(data, []);
  return found;
}

export function LastValues({ payload, language }: { payload: unknown; language: Language }) {
  const { t } = useTexts(texts);
  const values = lastValues(payload);
  if (values.length === 0) return <span className="muted">{t('unclaimed.no_values')}</span>;
  return (
    <>
      {values
        .map(({ metric, value }) => `${metricName(metric, language)} ${formatValue(value, metric, language)}`)
        .join(', ')}
    </>
  );
}

function NewDevices() {
  const { t, language } = useTexts(texts);
  const announce = useAnnounce();
  const unclaimed = useUnclaimed();
  const dismiss = useDismissUnclaimed();
  const [dismissing, setDismissing] = useState<UnclaimedDevice | null>(null);

  function onDismiss(device: UnclaimedDevice) {
    dismiss.mutate(device.dev_eui, {
      onSuccess: () => {
        setDismissing(null);
        announce(t('unclaimed.dismissed', { name: device.name || device.dev_eui }));
      },
      onError: (err) => {
        setDismissing(null);
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  const data = unclaimed.data;
  return (
    <section className="page new-devices">
      <Link className="back" to="/sensors">
        ← {t('device.back')}
      </Link>
      <PageHeading>{t('unclaimed.title')}</PageHeading>
      <p className="lead">{t('unclaimed.intro')}</p>
      {unclaimed.isPending && <Loading label={t('unclaimed.loading')} />}
      {unclaimed.isError && !data && (
        <ErrorState error={unclaimed.error} onRetry={() => void unclaimed.refetch()} />
      )}
      {data?.length === 0 && (
        <Empty title={t('unclaimed.empty_title')}>
          <p>{t('unclaimed.empty_body')}</p>
          <Link to="/sensors/connect">{t('unclaimed.connect_link')}</Link>
        </Empty>
      )}
      {data && data.length > 0 && (
        <ul className="card-list">
          {data.map((device) => {
            const label = device.name || device.dev_eui;
            return (
              <li key={device.dev_eui} className="card unclaimed">
                <h3>{label}</h3>
                <dl className="facts">
                  <div>
                    <dt>{t('device.dev_eui')}</dt>
                    <dd>
                      <code>{device.dev_eui}</code>
                    </dd>
                  </div>
                  <div>
                    <dt>{t('unclaimed.through')}</dt>
                    <dd>{sourceName(device.source, t)}</dd>
                  </div>
                  <div>
                    <dt>{t('col.heard')}</dt>
                    <dd>
                      <time dateTime={device.last_seen_at} title={formatTime(device.last_seen_at, language)}>
                        {formatRelative(device.last_seen_at, language)}
                      </time>
                    </dd>
                  </div>
                  <div>
                    <dt>{t('unclaimed.count')}</dt>
                    <dd>
                      {t('unclaimed.count_value', {
                        n: formatNumber(device.seen_count, language),
                        since: formatTime(device.first_seen_at, language, 'minute'),
                      })}
                    </dd>
                  </div>
                  <div>
                    <dt>{t('unclaimed.last_values')}</dt>
                    <dd>
                      <LastValues payload={device.last_payload} language={language} />
                    </dd>
                  </div>
                </dl>
                <div className="row-actions">
                  <Link
                    className="button primary"
                    to="/sensors/new-devices/$devEui"
                    params={{ devEui: device.dev_eui }}
                    aria-label={t('unclaimed.adopt_label', { name: label })}
                  >
                    {t('unclaimed.adopt')}
                  </Link>
                  <button
                    type="button"
                    className="button secondary"
                    aria-label={t('unclaimed.dismiss_label', { name: label })}
                    onClick={() => setDismissing(device)}
                  >
                    {t('unclaimed.dismiss')}
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {dismissing && (
        <ConfirmDialog
          title={t('unclaimed.dismiss_title')}
          confirmLabel={t('unclaimed.dismiss_confirm')}
          busy={dismiss.isPending}
          onConfirm={() => onDismiss(dismissing)}
          onCancel={() => setDismissing(null)}
        >
          <p>{t('unclaimed.dismiss_body', { name: dismissing.name || dismissing.dev_eui })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
