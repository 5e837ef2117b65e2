// One endpoint: its settings, its actions and its delivery log. The page polls while deliveries
// are under way, so results appear without a reload. After every action the focus stays on (or
// moves to) something that is still there, and the result is announced.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { focusPageHeading } from '../../app/focus';
import { useI18n } from '../../app/i18n';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, ErrorState, Loading } from '../../ui/States';
import {
  type Delivery,
  useDeleteEndpoint,
  useEnable,
  useEndpoint,
  useForgetEndpoint,
  useRedeliver,
  useRotateSecret,
  useSendTest,
} from './api';
import { EndpointStatusBadge, EventList, usePausedReason } from './Badges';
import { DeliveryLog } from './DeliveryLog';
import { EndpointStats } from './EndpointStats';
import { SecretNotice } from './SecretNotice';
import { useRevealedSecret } from './WebhooksSection';

type Pending = 'rotate' | 'delete' | 'enable' | null;

export default function EndpointDetail() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { t, plural, language } = useI18n();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const pausedReason = usePausedReason();
  const { revealed: anyRevealed, reveal } = useRevealedSecret();
  const revealed = anyRevealed?.endpointId === id ? anyRevealed : null;
  const [pending, setPending] = useState<Pending>(null);
  const sendTestButton = useRef<HTMLButtonElement>(null);

  const sendTest = useSendTest();
  const redeliver = useRedeliver();
  const rotate = useRotateSecret();
  const enable = useEnable();
  const remove = useDeleteEndpoint();
  const forget = useForgetEndpoint();
  const { endpoint, deliveries } = useEndpoint(id, { active: remove.isIdle || remove.isError });
  const busy =
    sendTest.isPending || redeliver.isPending || rotate.isPending || enable.isPending || remove.isPending;

  const failed = (err: unknown) => {
    setPending(null);
    if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
  };

  function onSendTest() {
    if (busy) return;
    sendTest.mutate(id, { onSuccess: () => announce(t('detail.test_sent')), onError: failed });
  }

  function onRedeliver(delivery: Delivery) {
    if (busy) return;
    redeliver.mutate(
      { id, deliveryId: delivery.id },
      {
        onSuccess: () => {
          announce(t('log.redelivered', { id: delivery.id }));
          // The row's Redeliver button goes while the delivery is queued: its Details button stays.
          requestAnimationFrame(() =>
            document.querySelector<HTMLElement>(`[aria-controls="delivery-${delivery.id}"]`)?.focus(),
          );
        },
        onError: failed,
      },
    );
  }

  function onRotate() {
    rotate.mutate(id, {
      onSuccess: (rotated) => {
        setPending(null);
        if (rotated.secret) reveal({ endpointId: id, secret: rotated.secret, reason: 'rotated' });
        announce(t('secret.rotated'));
      },
      onError: failed,
    });
  }

  function onEnable() {
    enable.mutate(id, {
      onSuccess: () => {
        setPending(null);
        // The paused notice (and its button) is gone: the dialog gives the focus to Send test.
        announce(t('detail.enabled'));
      },
      onError: failed,
    });
  }

  function onDelete(url: string) {
    remove.mutate(id, {
      onSuccess: () => {
        reveal(null);
        announce(t('webhooks.deleted', { url }));
        void navigate({ to: '/webhooks' }).then(() => forget(id));
      },
      onError: failed,
    });
  }

  function onSecretSaved() {
    reveal(null);
    focusPageHeading();
  }

  const back = (
    <Link className="back" to="/webhooks">
      ← {t('detail.back')}
    </Link>
  );

  const data = endpoint.data;
  if (!data) {
    return (
      <section className="page">
        {back}
        {endpoint.isError ? (
          <>
            <PageHeading>{t('webhooks.title')}</PageHeading>
            <ErrorState
              error={endpoint.error}
              notFound={t('error.not_found')}
              onRetry={() => void endpoint.refetch()}
            />
          </>
        ) : (
          <Loading label={t('detail.loading')} />
        )}
      </section>
    );
  }

  const paused = data.status === 'paused';

  return (
    <section className="page">
      {back}
      <div className="page-title">
        <PageHeading className="url-heading">{data.url}</PageHeading>
        <EndpointStatusBadge status={data.status} />
      </div>
      {endpoint.isError && (
        <ErrorState
          error={endpoint.error}
          notFound={t('error.not_found')}
          onRetry={() => void endpoint.refetch()}
        />
      )}

      {revealed && (
        <SecretNotice secret={revealed.secret} reason={revealed.reason} onDismiss={onSecretSaved} />
      )}

      {paused && (
        <div className="notice notice-warning paused-notice">
          <h2>{t('detail.paused_title')}</h2>
          <p>{pausedReason(data)}</p>
          <p>{data.held_count > 0 ? plural('held.count', data.held_count) : t('held.none')}</p>
          <button type="button" className="button primary" onClick={() => setPending('enable')}>
            {t('detail.enable')}
          </button>
        </div>
      )}

      <div className="toolbar">
        {/* Never disabled while busy: a disabled button drops the keyboard focus to the page. */}
        <button
          type="button"
          ref={sendTestButton}
          className="button primary"
          onClick={onSendTest}
          aria-disabled={busy || undefined}
        >
          {sendTest.isPending ? t('detail.sending_test') : t('detail.send_test')}
        </button>
        <Link className="button secondary" to="/webhooks/$id/edit" params={{ id }}>
          {t('detail.edit')}
        </Link>
        <button type="button" className="button secondary" onClick={() => setPending('rotate')}>
          {t('detail.rotate')}
        </button>
        <button type="button" className="button danger-outline" onClick={() => setPending('delete')}>
          {t('detail.delete')}
        </button>
      </div>

      <section className="panel settings" aria-labelledby="settings-title">
        <h2 id="settings-title">{t('detail.settings')}</h2>
        <dl className="facts">
          <div>
            <dt>{t('detail.events')}</dt>
            <dd>
              <EventList events={data.events} />
            </dd>
          </div>
          {data.description && (
            <div>
              <dt>{t('detail.description')}</dt>
              <dd>{data.description}</dd>
            </div>
          )}
          <div>
            <dt>{t('detail.created')}</dt>
            <dd>
              <time dateTime={data.created_at}>{formatTime(data.created_at, language)}</time>
            </dd>
          </div>
          <div>
            <dt>{t('detail.id')}</dt>
            <dd>
              <code>{data.id}</code>
            </dd>
          </div>
        </dl>
      </section>

      <EndpointStats id={id} />
      {deliveries.isError && !deliveries.data ? (
        <ErrorState error={deliveries.error} onRetry={() => void deliveries.refetch()} />
      ) : (
        <DeliveryLog
          deliveries={deliveries.data ?? null}
          refreshing={deliveries.isFetching}
          busy={busy}
          onRedeliver={onRedeliver}
        />
      )}

      {pending === 'rotate' && (
        <ConfirmDialog
          title={t('rotate.title')}
          confirmLabel={t('rotate.confirm')}
          busy={rotate.isPending}
          onConfirm={onRotate}
          onCancel={() => setPending(null)}
        >
          <p>{t('rotate.body')}</p>
        </ConfirmDialog>
      )}
      {pending === 'enable' && (
        <ConfirmDialog
          title={t('enable.title')}
          confirmLabel={t('enable.confirm')}
          busy={enable.isPending}
          fallbackFocus={sendTestButton}
          onConfirm={onEnable}
          onCancel={() => setPending(null)}
        >
          <p>
            {data.held_count > 0
              ? plural('enable.body', data.held_count, { url: data.url })
              : t('enable.body_none', { url: data.url })}
          </p>
        </ConfirmDialog>
      )}
      {pending === 'delete' && (
        <ConfirmDialog
          title={t('delete.title')}
          confirmLabel={t('delete.confirm')}
          tone="danger"
          busy={remove.isPending}
          onConfirm={() => onDelete(data.url)}
          onCancel={() => setPending(null)}
        >
          <p>{t('delete.body', { url: data.url })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
