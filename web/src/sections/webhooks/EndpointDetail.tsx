// One endpoint: its settings, its actions (test of any kind, pause, recover failed deliveries,
// rotate with an overlap) and its delivery log. The page polls while deliveries are under way, so
// results appear without a reload. After every action the focus stays on (or moves to) something
// that is still there, and the result is announced.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { focusPageHeading } from '../../app/focus';
import type { MessageKey } from '../../app/i18n';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, ErrorState, Loading } from '../../ui/States';
import {
  type Delivery,
  type Endpoint,
  EVENT_KINDS,
  TEST_MESSAGE_KIND,
  useDeleteEndpoint,
  useEnable,
  useEndpoint,
  useForgetEndpoint,
  usePause,
  useRedeliver,
  useRotateSecret,
  useSendTest,
} from './api';
import { EndpointStatusBadge, EventList, usePausedReason } from './Badges';
import { DeliveryLog } from './DeliveryLog';
import { EndpointStats } from './EndpointStats';
import { ALERT_KINDS, SEVERITIES, splitFilters } from './FilterChoices';
import { RecoverDialog } from './RecoverDialog';
import { RotateDialog } from './RotateDialog';
import { SecretNotice } from './SecretNotice';
import { texts } from './texts';
import { useRevealedSecret } from './WebhooksSection';

type Pending = 'rotate' | 'delete' | 'enable' | 'pause' | 'recover' | null;

/** The kinds a test message may be of: the plain test message, then the kinds the endpoint receives. */
function testKinds(endpoint: Endpoint): string[] {
  const all = endpoint.events.includes('*');
  return [TEST_MESSAGE_KIND, ...EVENT_KINDS.filter((kind) => all || endpoint.events.includes(kind))];
}

/** When the previous secret stops signing, while it still does. */
function previousSecretUntil(endpoint: Endpoint): string | null {
  const until = endpoint.previous_secret_expires_at;
  return until && new Date(until).getTime() > Date.now() ? until : null;
}

export default function EndpointDetail() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { t, plural, language } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const pausedReason = usePausedReason();
  const { revealed: anyRevealed, reveal } = useRevealedSecret();
  const revealed = anyRevealed?.endpointId === id ? anyRevealed : null;
  const [pending, setPending] = useState<Pending>(null);
  const sendTestButton = useRef<HTMLButtonElement>(null);
  const enableButton = useRef<HTMLButtonElement>(null);
  const [testKind, setTestKind] = useState(TEST_MESSAGE_KIND);

  const sendTest = useSendTest();
  const redeliver = useRedeliver();
  const rotate = useRotateSecret();
  const enable = useEnable();
  const pause = usePause();
  const remove = useDeleteEndpoint();
  const forget = useForgetEndpoint();
  const { endpoint, deliveries } = useEndpoint(id, { active: remove.isIdle || remove.isError });
  const busy =
    sendTest.isPending ||
    redeliver.isPending ||
    rotate.isPending ||
    enable.isPending ||
    pause.isPending ||
    remove.isPending;

  const eventWords = (kind: string) =>
    kind === 'webhook.endpoint.paused' ? t('controls.event_paused') : t(`event.${kind}` as MessageKey);

  const failed = (err: unknown) => {
    setPending(null);
    if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
  };

  function onSendTest() {
    if (busy) return;
    const kind = testKind;
    sendTest.mutate(
      { id, eventType: kind },
      {
        onSuccess: () =>
          announce(
            kind === TEST_MESSAGE_KIND
              ? t('detail.test_sent')
              : t('controls.test_sent_kind', { kind: eventWords(kind) }),
          ),
        onError: failed,
      },
    );
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

  function onRotate(overlapSeconds: number) {
    rotate.mutate(
      { id, overlapSeconds },
      {
        onSuccess: (rotated) => {
          setPending(null);
          if (rotated.secret) reveal({ endpointId: id, secret: rotated.secret, reason: 'rotated' });
          const until = previousSecretUntil(rotated);
          announce(
            until
              ? t('controls.rotated_overlap', { time: formatTime(until, language, 'minute') })
              : t('secret.rotated'),
          );
        },
        onError: failed,
      },
    );
  }

  function onPause() {
    pause.mutate(id, {
      onSuccess: () => {
        setPending(null);
        // The Pause button is gone: the dialog gives the focus to the paused notice's Re-enable.
        announce(t('controls.paused'));
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
  const previousUntil = previousSecretUntil(data);
  const previousUntilText = previousUntil
    ? t('controls.previous_until', { time: formatTime(previousUntil, language, 'minute') })
    : null;
  const headerNames = Object.keys(data.headers ?? {});
  const { choice: severityChoice, other: otherFilters } = splitFilters(data.filters);
  const severityFilters = ALERT_KINDS.filter(
    (kind) => !(kind in otherFilters) && severityChoice[kind].length < SEVERITIES.length,
  );
  const kinds = testKinds(data);

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
        <SecretNotice
          secret={revealed.secret}
          reason={revealed.reason}
          context={
            revealed.reason === 'rotated' && previousUntil
              ? t('controls.rotated_overlap', { time: formatTime(previousUntil, language, 'minute') })
              : undefined
          }
          onDismiss={onSecretSaved}
        />
      )}

      {paused && (
        <div className="notice notice-warning paused-notice">
          <h2>{t('detail.paused_title')}</h2>
          <p>{pausedReason(data)}</p>
          <p>{data.held_count > 0 ? plural('held.count', data.held_count) : t('held.none')}</p>
          <button
            type="button"
            ref={enableButton}
            className="button primary"
            onClick={() => setPending('enable')}
          >
            {t('detail.enable')}
          </button>
        </div>
      )}

      <div className="test-send">
        <label htmlFor="test-kind">{t('controls.test_kind')}</label>
        <div className="test-send-row">
          <select
            id="test-kind"
            value={kinds.includes(testKind) ? testKind : TEST_MESSAGE_KIND}
            onChange={(event) => setTestKind(event.target.value)}
          >
            {kinds.map((kind) => (
              <option key={kind} value={kind}>
                {eventWords(kind)}
              </option>
            ))}
          </select>
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
        </div>
      </div>

      <div className="toolbar">
        <Link className="button secondary" to="/webhooks/$id/edit" params={{ id }}>
          {t('detail.edit')}
        </Link>
        {!paused && (
          <button type="button" className="button secondary" onClick={() => setPending('pause')}>
            {t('controls.pause')}
          </button>
        )}
        <button type="button" className="button secondary" onClick={() => setPending('recover')}>
          {t('controls.recover')}
        </button>
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
          {previousUntilText && (
            <div>
              <dt>{t('secret.title')}</dt>
              <dd className="previous-secret">{previousUntilText}</dd>
            </div>
          )}
          {(severityFilters.length > 0 || Object.keys(otherFilters).length > 0) && (
            <div>
              <dt>{t('controls.filters_title')}</dt>
              <dd>
                <ul className="events">
                  {severityFilters.map((kind) => (
                    <li key={kind}>
                      <code>{kind}</code>
                      <span className="event-description">
                        {t('controls.only_severities', {
                          list: severityChoice[kind]
                            .map((s) => t(`controls.severity.${s}`).toLocaleLowerCase(language))
                            .join(', '),
                        })}
                      </span>
                    </li>
                  ))}
                  {Object.entries(otherFilters).map(([kind, fields]) => (
                    <li key={kind}>
                      <code>{kind}</code> <code>{JSON.stringify(fields)}</code>
                    </li>
                  ))}
                </ul>
              </dd>
            </div>
          )}
          {headerNames.length > 0 && (
            <div>
              <dt>{t('controls.headers_title')}</dt>
              <dd>
                <ul className="events">
                  {headerNames.map((name) => (
                    <li key={name}>
                      <code>{name}</code>
                    </li>
                  ))}
                </ul>
              </dd>
            </div>
          )}
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
        <RotateDialog busy={rotate.isPending} onConfirm={onRotate} onCancel={() => setPending(null)} />
      )}
      {pending === 'pause' && (
        <ConfirmDialog
          title={t('controls.pause_title')}
          confirmLabel={t('controls.pause')}
          busy={pause.isPending}
          fallbackFocus={enableButton}
          onConfirm={onPause}
          onCancel={() => setPending(null)}
        >
          <p>{t('controls.pause_body', { url: data.url })}</p>
        </ConfirmDialog>
      )}
      {pending === 'recover' && <RecoverDialog endpointId={id} onDone={() => setPending(null)} />}
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
