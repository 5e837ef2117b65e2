// One endpoint: its settings, the actions of spec 6.4 and its delivery log. The page polls the
// endpoint and its deliveries while deliveries are under way, so results appear without a reload.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RevealedSecret } from '../App';
import { ApiError, type Delivery, type Endpoint } from '../api';
import { useI18n } from '../i18n';
import { followLink, hrefFor } from '../router';
import { useSession } from '../session';
import { formatTime } from '../time';
import { EndpointStatusBadge, EventList, usePausedReason } from './Badges';
import { ConfirmDialog } from './ConfirmDialog';
import { DeliveryLog } from './DeliveryLog';
import { PageHeading } from './PageHeading';
import { SecretNotice } from './SecretNotice';

interface EndpointDetailProps {
  id: string;
  revealed: RevealedSecret | null;
  onReveal: (secret: RevealedSecret) => void;
  onDismissSecret: () => void;
  onDeleted: (url: string) => void;
}

type Pending = 'rotate' | 'delete' | 'enable' | null;

/** Poll quickly while something is about to happen, slowly otherwise. */
const FAST_POLL_MS = 2000;
const SLOW_POLL_MS = 5000;
const FAST_WINDOW_MS = 20000;

function nextPollDelay(deliveries: Delivery[] | null, fastUntil: number, now: number): number {
  if (now < fastUntil) return FAST_POLL_MS;
  for (const delivery of deliveries ?? []) {
    if (delivery.status === 'pending') return FAST_POLL_MS;
    if (delivery.status === 'retrying' && delivery.next_attempt_at) {
      if (new Date(delivery.next_attempt_at).getTime() - now < 60_000) return FAST_POLL_MS;
    }
  }
  return SLOW_POLL_MS;
}

export function EndpointDetail({ id, revealed, onReveal, onDismissSecret, onDeleted }: EndpointDetailProps) {
  const { t, plural, language } = useI18n();
  const { api, describeError, flash } = useSession();
  const pausedReason = usePausedReason();
  const [endpoint, setEndpoint] = useState<Endpoint | null>(null);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [tick, setTick] = useState(0);
  const fastUntil = useRef(0);

  const refresh = useCallback(async () => {
    setRefreshing(true);
    try {
      const [nextEndpoint, nextDeliveries] = await Promise.all([api.getEndpoint(id), api.listDeliveries(id)]);
      setEndpoint(nextEndpoint);
      setDeliveries(nextDeliveries);
      setLoadError(null);
    } catch (err) {
      const message =
        err instanceof ApiError && err.status === 404 ? t('error.not_found') : describeError(err);
      if (message) setLoadError(message);
    } finally {
      setRefreshing(false);
    }
  }, [api, id, describeError, t]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // Poll while the page is open and visible.
  useEffect(() => {
    if (loadError || tick < 0) return;
    const delay = nextPollDelay(deliveries, fastUntil.current, Date.now());
    const timer = setTimeout(() => {
      if (document.visibilityState === 'visible') void refresh().then(() => setTick((n) => n + 1));
      else setTick((n) => n + 1); // hidden tab: look again later
    }, delay);
    return () => clearTimeout(timer);
  }, [tick, deliveries, loadError, refresh]);

  /** Runs an action, closes its dialog, then refreshes quickly for a while so its effects show up. */
  async function act(name: string, action: () => Promise<void>) {
    setBusy(name);
    try {
      await action();
      setPending(null);
      fastUntil.current = Date.now() + FAST_WINDOW_MS;
      await refresh();
    } catch (err) {
      setPending(null);
      flash(describeError(err), 'error');
    } finally {
      setBusy(null);
    }
  }

  const sendTest = () =>
    act('test', async () => {
      await api.sendTest(id);
      flash(t('detail.test_sent'));
    });

  const redeliver = (delivery: Delivery) =>
    act(`redeliver:${delivery.id}`, async () => {
      await api.redeliver(id, delivery.id);
      flash(t('log.redelivered', { id: delivery.id }));
    });

  const confirmRotate = () =>
    act('rotate', async () => {
      const rotated = await api.rotateSecret(id);
      if (rotated.secret) onReveal({ endpointId: id, secret: rotated.secret, reason: 'rotated' });
    });

  const confirmEnable = () =>
    act('enable', async () => {
      await api.enableEndpoint(id);
      flash(t('detail.enabled'));
    });

  async function confirmDelete() {
    if (!endpoint) return;
    setBusy('delete');
    try {
      await api.deleteEndpoint(id);
      onDismissSecret();
      onDeleted(endpoint.url);
    } catch (err) {
      setPending(null);
      flash(describeError(err), 'error');
      setBusy(null);
    }
  }

  const back = (
    <a className="back" href={hrefFor({ page: 'webhooks' })} onClick={followLink({ page: 'webhooks' })}>
      ← {t('detail.back')}
    </a>
  );

  if (!endpoint) {
    return (
      <section className="page">
        {back}
        {loadError ? (
          <>
            <PageHeading>{t('webhooks.title')}</PageHeading>
            <p className="notice notice-error" role="alert">
              {loadError}
            </p>
          </>
        ) : (
          <p className="loading" role="status">
            {t('detail.loading')}
          </p>
        )}
      </section>
    );
  }

  const paused = endpoint.status === 'paused';
  const editRoute = { page: 'edit' as const, id };

  return (
    <section className="page">
      {back}
      <div className="page-title">
        <PageHeading className="url-heading">{endpoint.url}</PageHeading>
        <EndpointStatusBadge status={endpoint.status} />
      </div>
      {loadError && (
        <p className="notice notice-error" role="alert">
          {loadError}
        </p>
      )}

      {revealed && (
        <SecretNotice secret={revealed.secret} reason={revealed.reason} onDismiss={onDismissSecret} />
      )}

      {paused && (
        <div className="notice notice-warning paused-notice">
          <h2>{t('detail.paused_title')}</h2>
          <p>{pausedReason(endpoint)}</p>
          <p>{endpoint.held_count > 0 ? plural('held.count', endpoint.held_count) : t('held.none')}</p>
          <button
            type="button"
            className="button primary"
            onClick={() => setPending('enable')}
            disabled={busy !== null}
          >
            {t('detail.enable')}
          </button>
        </div>
      )}

      <div className="toolbar">
        <button type="button" className="button primary" onClick={sendTest} disabled={busy !== null}>
          {busy === 'test' ? t('detail.sending_test') : t('detail.send_test')}
        </button>
        <a className="button secondary" href={hrefFor(editRoute)} onClick={followLink(editRoute)}>
          {t('detail.edit')}
        </a>
        <button
          type="button"
          className="button secondary"
          onClick={() => setPending('rotate')}
          disabled={busy !== null}
        >
          {t('detail.rotate')}
        </button>
        <button
          type="button"
          className="button danger-outline"
          onClick={() => setPending('delete')}
          disabled={busy !== null}
        >
          {t('detail.delete')}
        </button>
      </div>

      <section className="panel settings" aria-labelledby="settings-title">
        <h2 id="settings-title">{t('detail.settings')}</h2>
        <dl className="facts">
          <div>
            <dt>{t('detail.events')}</dt>
            <dd>
              <EventList events={endpoint.events} />
            </dd>
          </div>
          {endpoint.description && (
            <div>
              <dt>{t('detail.description')}</dt>
              <dd>{endpoint.description}</dd>
            </div>
          )}
          <div>
            <dt>{t('detail.created')}</dt>
            <dd>
              <time dateTime={endpoint.created_at}>{formatTime(endpoint.created_at, language)}</time>
            </dd>
          </div>
          <div>
            <dt>{t('detail.id')}</dt>
            <dd>
              <code>{endpoint.id}</code>
            </dd>
          </div>
        </dl>
      </section>

      <DeliveryLog deliveries={deliveries} refreshing={refreshing} busy={busy} onRedeliver={redeliver} />

      {pending === 'rotate' && (
        <ConfirmDialog
          title={t('rotate.title')}
          confirmLabel={t('rotate.confirm')}
          busy={busy === 'rotate'}
          onConfirm={confirmRotate}
          onCancel={() => setPending(null)}
        >
          <p>{t('rotate.body')}</p>
        </ConfirmDialog>
      )}
      {pending === 'enable' && (
        <ConfirmDialog
          title={t('enable.title')}
          confirmLabel={t('enable.confirm')}
          busy={busy === 'enable'}
          onConfirm={confirmEnable}
          onCancel={() => setPending(null)}
        >
          <p>
            {endpoint.held_count > 0
              ? plural('enable.body', endpoint.held_count, { url: endpoint.url })
              : t('enable.body_none', { url: endpoint.url })}
          </p>
        </ConfirmDialog>
      )}
      {pending === 'delete' && (
        <ConfirmDialog
          title={t('delete.title')}
          confirmLabel={t('delete.confirm')}
          tone="danger"
          busy={busy === 'delete'}
          onConfirm={confirmDelete}
          onCancel={() => setPending(null)}
        >
          <p>{t('delete.body', { url: endpoint.url })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
