// The Sensors page: alerts first (what needs attention), then every device with whether it is
// reporting, then the alert rules. Owners add and change devices and rules; staff read them.
import { Link } from '@tanstack/react-router';
import { useMemo, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatRelative, formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, Empty, ErrorState, Loading } from '../../ui/States';
import { AlertsPanel } from './AlertsPanel';
import {
  type Device,
  type Rule,
  useDeleteRule,
  useDevices,
  useRules,
  useUnclaimed,
  useZones,
  type Zone,
} from './api';
import { DeviceStatus, formatValue, SeverityBadge, useCondition } from './parts';
import { texts } from './texts';

export default function SensorsHome() {
  const { t } = useTexts(texts);
  const devices = useDevices();
  const byId = useMemo(() => new Map((devices.data ?? []).map((d) => [d.id, d])), [devices.data]);
  return (
    <section className="page">
      <PageHeading>{t('sensors.title')}</PageHeading>
      <p className="lead">{t('sensors.intro')}</p>
      <OwnerTools />
      <AlertsPanel devices={byId} />
      <DevicesPanel devices={devices} />
      <RulesPanel devices={byId} />
    </section>
  );
}

function useIsOwner(): boolean {
  return useSession().session.user.role === 'owner';
}

/** Owners: where to connect sensors and set e-mail alerts, and news of devices not added yet. */
function OwnerTools() {
  const owner = useIsOwner();
  return owner ? <OwnerToolbar /> : null;
}

function OwnerToolbar() {
  const { t, plural } = useTexts(texts);
  const unclaimed = useUnclaimed();
  const count = unclaimed.data?.length ?? 0;
  return (
    <>
      {count > 0 && (
        <div className="notice notice-info new-devices-notice">
          <p>{plural('unclaimed.notice', count)}</p>
          <Link className="button primary" to="/sensors/new-devices">
            {t('unclaimed.notice_link')}
          </Link>
        </div>
      )}
      <nav className="toolbar sensors-tools" aria-label={t('sensors.tools')}>
        <Link className="button secondary" to="/sensors/connect">
          {t('connect.title')}
        </Link>
        <Link className="button secondary" to="/sensors/new-devices">
          {t('unclaimed.title')}{' '}
          {count > 0 && (
            <span className="count-badge">
              <span aria-hidden="true">{count}</span>
              <span className="visually-hidden">{plural('unclaimed.waiting', count)}</span>
            </span>
          )}
        </Link>
        <Link className="button secondary" to="/sensors/email-alerts">
          {t('email.title')}
        </Link>
      </nav>
    </>
  );
}

function DevicesPanel({ devices }: { devices: ReturnType<typeof useDevices> }) {
  const { t, language } = useTexts(texts);
  const owner = useIsOwner();
  const zones = useZones();
  const zoneName = (id: number | null) => (id === null ? null : zones.data?.find((z) => z.id === id)?.name);
  const add = owner && (
    <Link className="button primary" to="/sensors/devices/new">
      {t('devices.add')}
    </Link>
  );
  return (
    <section className="panel" aria-labelledby="devices-title">
      <div className="panel-title">
        <h2 id="devices-title">{t('devices.title')}</h2>
        {devices.data && devices.data.length > 0 && add}
      </div>
      {devices.isPending && <Loading label={t('devices.loading')} />}
      {devices.isError && !devices.data && (
        <ErrorState error={devices.error} onRetry={() => void devices.refetch()} />
      )}
      {devices.data?.length === 0 && (
        <Empty title={t('devices.empty_title')}>
          <p>{t(owner ? 'devices.empty_owner' : 'devices.empty_staff')}</p>
          {add}
        </Empty>
      )}
      {devices.data && devices.data.length > 0 && (
        <table className="data-table devices">
          <caption className="visually-hidden">{t('devices.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.device')}</th>
              <th scope="col">{t('col.status')}</th>
              <th scope="col">{t('col.heard')}</th>
              <th scope="col">{t('col.zone')}</th>
            </tr>
          </thead>
          <tbody>
            {devices.data.map((device) => (
              <tr key={device.id}>
                <th scope="row" data-label={t('col.device')}>
                  <Link className="device-link" to="/sensors/devices/$id" params={{ id: String(device.id) }}>
                    {device.name}
                  </Link>
                  {device.name !== device.code && (
                    <span className="description">{t('device.code', { code: device.code })}</span>
                  )}
                </th>
                <td data-label={t('col.status')}>
                  <DeviceStatus status={device.status} />
                </td>
                <td data-label={t('col.heard')}>
                  {device.last_heartbeat ? (
                    <time
                      dateTime={device.last_heartbeat}
                      title={formatTime(device.last_heartbeat, language)}
                    >
                      {formatRelative(device.last_heartbeat, language)}
                    </time>
                  ) : (
                    <span className="muted">{t('device.never')}</span>
                  )}
                </td>
                <td data-label={t('col.zone')}>
                  {zoneName(device.zone_id) ?? <span className="muted">{t('device.no_zone')}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What a rule watches, in words: a device's name, or every device of a zone. */
export function useTargetName(devices: Map<number, Device>, zones: Zone[] | undefined) {
  const { t } = useTexts(texts);
  return (rule: Rule) => {
    if (rule.device_id !== null) return devices.get(rule.device_id)?.name ?? '…';
    const zone = zones?.find((z) => z.id === rule.zone_id);
    return t('rule.zone', { zone: zone?.name ?? '…' });
  };
}

/** "Back to normal at 33 °C", "Only after 10 minutes", when the rule sets them. */
function RuleTiming({ rule }: { rule: Rule }) {
  const { t, plural, language } = useTexts(texts);
  const minutes = Math.round((rule.min_duration_seconds ?? 0) / 60);
  return (
    <>
      {rule.clear_threshold !== null && rule.clear_threshold !== undefined && (
        <span className="description">
          {t('rule.clears_at', { value: formatValue(rule.clear_threshold, rule.metric, language) })}
        </span>
      )}
      {minutes > 0 && <span className="description">{plural('rule.lasts', minutes)}</span>}
    </>
  );
}

function RulesPanel({ devices }: { devices: Map<number, Device> }) {
  const { t } = useTexts(texts);
  const owner = useIsOwner();
  const announce = useAnnounce();
  const rules = useRules();
  const zones = useZones();
  const condition = useCondition();
  const target = useTargetName(devices, zones.data);
  const remove = useDeleteRule();
  const [deleting, setDeleting] = useState<Rule | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  const add = owner && (
    <Link className="button primary" to="/sensors/rules/new">
      {t('rules.add')}
    </Link>
  );

  function onDelete(rule: Rule) {
    remove.mutate(rule.id, {
      onSuccess: () => {
        setDeleting(null);
        announce(t('rule.deleted'));
      },
      onError: (err) => {
        setDeleting(null);
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  return (
    <section className="panel" aria-labelledby="rules-title">
      <div className="panel-title">
        <h2 id="rules-title" ref={headingRef} tabIndex={-1}>
          {t('rules.title')}
        </h2>
        {rules.data && rules.data.length > 0 && add}
      </div>
      <p className="hint">{t('rules.intro')}</p>
      {rules.isPending && <Loading label={t('rules.loading')} />}
      {rules.isError && !rules.data && (
        <ErrorState error={rules.error} onRetry={() => void rules.refetch()} />
      )}
      {rules.data?.length === 0 && (
        <Empty title={t('rules.empty_title')}>
          <p>{t(owner ? 'rules.empty_owner' : 'rules.empty_staff')}</p>
          {add}
        </Empty>
      )}
      {rules.data && rules.data.length > 0 && (
        <table className="data-table rules">
          <caption className="visually-hidden">{t('rules.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('rule.col.when')}</th>
              <th scope="col">{t('rule.col.watches')}</th>
              <th scope="col">{t('rule.col.severity')}</th>
              {owner && <th scope="col">{t('rule.col.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {rules.data.map((rule) => (
              <tr key={rule.id}>
                <th scope="row" data-label={t('rule.col.when')}>
                  {condition(rule)}
                  <RuleTiming rule={rule} />
                  {rule.message && <span className="description">{rule.message}</span>}
                </th>
                <td data-label={t('rule.col.watches')}>{target(rule)}</td>
                <td data-label={t('rule.col.severity')}>
                  <SeverityBadge severity={rule.severity} />
                </td>
                {owner && (
                  <td data-label={t('rule.col.actions')} className="row-actions">
                    <Link
                      className="button secondary"
                      to="/sensors/rules/$id/edit"
                      params={{ id: String(rule.id) }}
                      aria-label={t('rule.edit_label', { condition: condition(rule) })}
                    >
                      {t('rule.edit')}
                    </Link>
                    <button
                      type="button"
                      className="button danger-outline"
                      aria-label={t('rule.delete_label', { condition: condition(rule) })}
                      onClick={() => setDeleting(rule)}
                    >
                      {t('rule.delete')}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && (
        <ConfirmDialog
          title={t('rule.delete_title')}
          confirmLabel={t('rule.delete_confirm')}
          tone="danger"
          busy={remove.isPending}
          fallbackFocus={headingRef}
          onConfirm={() => onDelete(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>{t('rule.delete_body', { condition: condition(deleting) })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
