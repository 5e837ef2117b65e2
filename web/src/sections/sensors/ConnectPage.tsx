// Connect sensors (owners): how a LoRaWAN network server (ChirpStack, The Things Stack) sends its
// devices' data to Furrow, with the addresses and the header to copy, and the MQTT brokers Furrow
// listens to, each with whether it is connected and, when not, why in plain words.
import { Link } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatRelative, formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, Empty, ErrorState, Loading } from '../../ui/States';
import { type MqttSource, useDeleteMqttSource, useMqttSources } from './api';
import { CopyField, OwnersOnly } from './parts';
import { type SensorsKey, texts } from './texts';

export default function ConnectPage() {
  const { t } = useTexts(texts);
  return (
    <OwnersOnly title={t('connect.title')}>
      <Connect />
    </OwnersOnly>
  );
}

function Connect() {
  const { t } = useTexts(texts);
  const origin = window.location.origin;
  return (
    <section className="page connect">
      <Link className="back" to="/sensors">
        ← {t('device.back')}
      </Link>
      <PageHeading>{t('connect.title')}</PageHeading>
      <p className="lead">{t('connect.intro')}</p>

      <section className="panel" aria-labelledby="connect-key">
        <h2 id="connect-key">{t('connect.key_title')}</h2>
        <p>{t('connect.key_body')}</p>
        <p>
          <Link className="button secondary" to="/people/keys/new">
            {t('connect.key_link')}
          </Link>
        </p>
        <CopyField
          label={t('connect.header_name')}
          value="Authorization"
          hint={t('connect.header_name_hint')}
        />
        <p className="header-value">
          {t('connect.header_value')} <code>Bearer fk_…</code>
        </p>
        <p className="hint">{t('connect.header_value_hint')}</p>
      </section>

      <section className="panel" aria-labelledby="connect-chirpstack">
        <h2 id="connect-chirpstack">ChirpStack</h2>
        <CopyField label={t('connect.chirpstack_url')} value={`${origin}/api/iot/ingest/chirpstack`} />
        <Steps keys={CHIRPSTACK_STEPS} />
      </section>

      <section className="panel" aria-labelledby="connect-tts">
        <h2 id="connect-tts">The Things Stack</h2>
        <CopyField label={t('connect.tts_url')} value={`${origin}/api/iot/ingest/tts`} />
        <Steps keys={TTS_STEPS} />
      </section>

      <p className="notice notice-info">
        {t('connect.after')} <Link to="/sensors/new-devices">{t('connect.after_link')}</Link>
      </p>

      <MqttPanel />

      <section className="panel" aria-labelledby="connect-email">
        <h2 id="connect-email">{t('email.title')}</h2>
        <p>{t('connect.email_body')}</p>
        <Link className="button secondary" to="/sensors/email-alerts">
          {t('connect.email_link')}
        </Link>
      </section>
    </section>
  );
}

function Steps({ keys }: { keys: readonly SensorsKey[] }) {
  const { t } = useTexts(texts);
  return (
    <ol className="steps">
      {keys.map((key) => (
        <li key={key}>{t(key)}</li>
      ))}
    </ol>
  );
}

const CHIRPSTACK_STEPS = [
  'connect.chirpstack_step1',
  'connect.chirpstack_step2',
  'connect.chirpstack_step3',
  'connect.chirpstack_step4',
] as const;
const TTS_STEPS = [
  'connect.tts_step1',
  'connect.tts_step2',
  'connect.tts_step3',
  'connect.tts_step4',
] as const;

/** Why a broker is not connected, in plain words; the server's short text stays beside it. */
export function useBrokerProblem(): (error: string) => string {
  const { t } = useTexts(texts);
  return (error) => {
    if (/public address|private/i.test(error)) return t('mqtt.why.private');
    if (/refused this client|banned/i.test(error)) return t('mqtt.why.client');
    if (/not authori[sz]ed|user ?name or password/i.test(error)) return t('mqtt.why.auth');
    if (/does not resolve|ENOTFOUND|EAI_AGAIN/i.test(error)) return t('mqtt.why.not_found');
    if (/unreachable/i.test(error)) return t('mqtt.why.unreachable');
    if (/connection refused|ECONNREFUSED/i.test(error)) return t('mqtt.why.refused');
    if (/timed? ?out|no answer|stopped answering/i.test(error)) return t('mqtt.why.timeout');
    if (/TLS|certificate|SSL/i.test(error)) return t('mqtt.why.tls');
    if (/reset|closed/i.test(error)) return t('mqtt.why.closed');
    return t('mqtt.why.other');
  };
}

export function BrokerStatus({ source }: { source: MqttSource }) {
  const { t, language } = useTexts(texts);
  const problem = useBrokerProblem();
  let state: 'connected' | 'off' | 'down' = 'down';
  if (!source.enabled) state = 'off';
  else if (source.connected) state = 'connected';
  return (
    <div className="broker-status">
      <span className={`badge broker-${state}`}>
        <span aria-hidden="true" className="status-mark">
          {state === 'connected' ? '●' : state === 'off' ? '–' : '○'}
        </span>{' '}
        <span>{t(`mqtt.state.${state}`)}</span>
      </span>
      {state === 'down' && source.last_error && (
        <p className="broker-problem">
          {problem(source.last_error)}{' '}
          <span className="technical">
            {t('mqtt.technical')} <code>{source.last_error}</code>
          </span>
        </p>
      )}
      {state === 'down' && !source.last_error && <p className="broker-problem">{t('mqtt.why.waiting')}</p>}
      <p className="hint">
        {source.last_message_at ? (
          <>
            {t('mqtt.last_message')}{' '}
            <time dateTime={source.last_message_at} title={formatTime(source.last_message_at, language)}>
              {formatRelative(source.last_message_at, language)}
            </time>
          </>
        ) : (
          t('mqtt.no_message')
        )}
      </p>
    </div>
  );
}

function MqttPanel() {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const sources = useMqttSources();
  const remove = useDeleteMqttSource();
  const [deleting, setDeleting] = useState<MqttSource | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  const add = (
    <Link className="button primary" to="/sensors/mqtt/new">
      {t('mqtt.add')}
    </Link>
  );

  function onDelete(source: MqttSource) {
    remove.mutate(source.id, {
      onSuccess: () => {
        setDeleting(null);
        announce(t('mqtt.deleted', { name: source.name }));
      },
      onError: (err) => {
        setDeleting(null);
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  return (
    <section className="panel" aria-labelledby="mqtt-title">
      <div className="panel-title">
        <h2 id="mqtt-title" ref={headingRef} tabIndex={-1}>
          {t('mqtt.title')}
        </h2>
        {sources.data && sources.data.length > 0 && add}
      </div>
      <p className="hint">{t('mqtt.intro')}</p>
      {sources.isPending && <Loading label={t('mqtt.loading')} />}
      {sources.isError && !sources.data && (
        <ErrorState error={sources.error} onRetry={() => void sources.refetch()} />
      )}
      {sources.data?.length === 0 && (
        <Empty title={t('mqtt.empty_title')}>
          <p>{t('mqtt.empty_body')}</p>
          {add}
        </Empty>
      )}
      {sources.data && sources.data.length > 0 && (
        <ul className="card-list">
          {sources.data.map((source) => (
            <li key={source.id} className="card">
              <h3>{source.name}</h3>
              <BrokerStatus source={source} />
              <dl className="facts">
                <div>
                  <dt>{t('mqtt.url')}</dt>
                  <dd>
                    <code>{source.url}</code>
                  </dd>
                </div>
                <div>
                  <dt>{t('mqtt.topics')}</dt>
                  <dd>
                    {source.topics.map((topic) => (
                      <code key={topic} className="topic">
                        {topic}
                      </code>
                    ))}
                  </dd>
                </div>
                <div>
                  <dt>{t('mqtt.format')}</dt>
                  <dd>{t(`mqtt.format.${source.format}`)}</dd>
                </div>
              </dl>
              <div className="row-actions">
                <Link
                  className="button secondary"
                  to="/sensors/mqtt/$id/edit"
                  params={{ id: String(source.id) }}
                  aria-label={t('mqtt.edit_label', { name: source.name })}
                >
                  {t('mqtt.edit')}
                </Link>
                <button
                  type="button"
                  className="button danger-outline"
                  aria-label={t('mqtt.delete_label', { name: source.name })}
                  onClick={() => setDeleting(source)}
                >
                  {t('mqtt.delete')}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {deleting && (
        <ConfirmDialog
          title={t('mqtt.delete_title')}
          confirmLabel={t('mqtt.delete_confirm')}
          tone="danger"
          busy={remove.isPending}
          fallbackFocus={headingRef}
          onConfirm={() => onDelete(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>{t('mqtt.delete_body', { name: deleting.name })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
