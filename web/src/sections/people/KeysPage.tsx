// Keys for programs (owners): the farm's API keys with what each may do, how it starts, when it
// was made, last used and expires (an expired one is marked); the key just added, shown once;
// revoking one after a confirmation. The list looks again every 30 seconds, so a key's last use
// shows up without a reload.
import { Link } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { focusPageHeading } from '../../app/focus';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatDate, formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { ShownOnce } from '../../ui/ShownOnce';
import { describeError, Empty, ErrorState, Loading } from '../../ui/States';
import { type ApiKey, useApiKeys, useRevokeApiKey } from './api';
import { useRevealedKey } from './PeopleSection';
import { RoleBadge } from './RoleBadge';
import { texts } from './texts';

/** The time now, moved on every minute, so a key that expires while the page is open says so. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export default function KeysPage() {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const apiKeys = useApiKeys();
  const revoke = useRevokeApiKey();
  const { revealed, reveal } = useRevealedKey();
  const [asking, setAsking] = useState<ApiKey | null>(null);
  const now = useNow();

  const add = (
    <Link className="button primary" to="/people/keys/new">
      {t('keys.add')}
    </Link>
  );

  function hideKey() {
    reveal(null);
    announce(t('shown.dismissed'));
    focusPageHeading();
  }

  function confirmRevoke(key: ApiKey) {
    revoke.mutate(key.id, {
      onSuccess: () => {
        if (revealed?.id === key.id) reveal(null);
        announce(t('revoke.done', { name: key.name }));
        setAsking(null);
      },
      onError: (err) => {
        setAsking(null);
        if (!(err instanceof SessionExpiredError)) {
          announce(t('revoke.failed', { name: key.name, reason: describeError(err, t) }), 'error');
        }
      },
    });
  }

  return (
    <section className="page people api-keys">
      <Link className="back" to="/people">
        ← {t('keys.back')}
      </Link>
      <div className="page-title">
        <PageHeading>{t('keys.title')}</PageHeading>
        {add}
      </div>
      <p className="lead">{t('keys.intro')}</p>

      {revealed && (
        <ShownOnce
          value={revealed.key}
          wrap
          onDismiss={hideKey}
          words={{
            title: t('shown.title'),
            context: t('shown.context', { name: revealed.name }),
            warning: t('shown.once'),
            copy: t('shown.copy'),
            copied: t('shown.copied'),
            copyFailed: t('shown.copy_failed'),
            use: t('shown.use'),
            done: t('shown.done'),
          }}
        />
      )}

      {apiKeys.isPending && <Loading label={t('keys.loading')} />}
      {apiKeys.isError && !apiKeys.data && (
        <ErrorState error={apiKeys.error} onRetry={() => void apiKeys.refetch()} />
      )}
      {apiKeys.data?.length === 0 && (
        <Empty title={t('keys.empty_title')}>
          <p>{t('keys.empty_body')}</p>
          {add}
        </Empty>
      )}
      {apiKeys.data && apiKeys.data.length > 0 && (
        <table className="data-table api-keys-table">
          <caption className="visually-hidden">{t('keys.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('keys.col_name')}</th>
              <th scope="col">{t('keys.col_may')}</th>
              <th scope="col">{t('keys.col_prefix')}</th>
              <th scope="col">{t('keys.col_made')}</th>
              <th scope="col">{t('keys.col_used')}</th>
              <th scope="col">{t('keys.col_expires')}</th>
              <th scope="col">
                <span className="visually-hidden">{t('keys.col_actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {apiKeys.data.map((key) => (
              <KeyRow
                key={key.id}
                apiKey={key}
                now={now}
                fresh={revealed?.id === key.id}
                onRevoke={() => setAsking(key)}
              />
            ))}
          </tbody>
        </table>
      )}

      {asking && (
        <ConfirmDialog
          title={t('revoke.confirm_title', { name: asking.name })}
          confirmLabel={revoke.isPending ? t('revoke.busy') : t('revoke.confirm')}
          tone="danger"
          busy={revoke.isPending}
          onConfirm={() => confirmRevoke(asking)}
          onCancel={() => setAsking(null)}
        >
          <p>{t('revoke.confirm_body')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function KeyRow({
  apiKey,
  now,
  fresh,
  onRevoke,
}: {
  apiKey: ApiKey;
  now: number;
  fresh: boolean;
  onRevoke: () => void;
}) {
  const { t, language } = useTexts(texts);
  const expired = apiKey.expires_at !== null && new Date(apiKey.expires_at).getTime() <= now;
  return (
    <tr className={`${expired ? 'expired' : ''}${fresh ? ' fresh' : ''}`.trim() || undefined}>
      <th scope="row">
        <span className="key-name">{apiKey.name}</span>
        {expired && <span className="expired-note">{t('keys.expired_note')}</span>}
      </th>
      <td data-label={t('keys.col_may')}>
        <RoleBadge role={apiKey.role} />
        <span className="key-may">{t(apiKey.role === 'owner' ? 'keys.may_owner' : 'keys.may_staff')}</span>
      </td>
      <td data-label={t('keys.col_prefix')}>
        <code className="key-prefix">{apiKey.prefix}…</code>
      </td>
      <td data-label={t('keys.col_made')}>
        <time className="day" dateTime={apiKey.created_at}>
          {formatDate(apiKey.created_at, language)}
        </time>
      </td>
      <td data-label={t('keys.col_used')}>
        {apiKey.last_used_at === null ? (
          <span className="muted">{t('keys.never_used')}</span>
        ) : (
          <time dateTime={apiKey.last_used_at}>{formatTime(apiKey.last_used_at, language, 'minute')}</time>
        )}
      </td>
      <td data-label={t('keys.col_expires')}>
        {apiKey.expires_at === null ? (
          <span className="muted">{t('keys.never_expires')}</span>
        ) : (
          <>
            {expired && <span className="badge badge-expired expired-badge">{t('keys.expired')}</span>}
            <time className="day" dateTime={apiKey.expires_at}>
              {formatDate(apiKey.expires_at, language)}
            </time>
          </>
        )}
      </td>
      <td className="row-actions">
        <button type="button" className="button danger-outline" onClick={onRevoke}>
          {t('revoke.button')}
          <span className="visually-hidden"> {apiKey.name}</span>
        </button>
      </td>
    </tr>
  );
}
