// Add or edit an MQTT broker Furrow listens to (owners): its address, user name and password (the
// password is never shown again; left empty on edit it stays), the topics, and how its messages
// are written. The API's reasons are shown next to their field; the focus goes to the first one.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import {
  MQTT_FORMATS,
  type MqttFormat,
  type MqttSource,
  type MqttSourceInput,
  useMqttSource,
  useSaveMqttSource,
} from './api';
import { OwnersOnly } from './parts';
import { texts } from './texts';

const FIELDS = ['name', 'url', 'username', 'password', 'topics', 'format', 'enabled'] as const;
type FieldName = (typeof FIELDS)[number];

/** The topics a network server publishes uplinks on, to start from. */
const TOPIC_EXAMPLES: Record<MqttFormat, string> = {
  chirpstack: 'application/+/device/+/event/up',
  tts: 'v3/+/devices/+/up',
  furrow: 'farm/sensors/+',
};

export default function MqttFormPage() {
  const { id } = useParams({ strict: false }) as { id?: string };
  const editId = id === undefined ? null : Number(id);
  const { t } = useTexts(texts);
  return (
    <OwnersOnly title={t(editId === null ? 'mqttform.add_title' : 'mqttform.edit_title')}>
      <MqttFormLoader editId={editId} />
    </OwnersOnly>
  );
}

function MqttFormLoader({ editId }: { editId: number | null }) {
  const { t } = useTexts(texts);
  const source = useMqttSource(editId);
  if (editId === null) return <MqttForm source={null} />;
  if (source.data) return <MqttForm key={source.data.id} source={source.data} />;
  return (
    <section className="page narrow">
      <Link className="back" to="/sensors/connect">
        ← {t('connect.back')}
      </Link>
      {source.isError ? (
        <>
          <PageHeading>{t('mqttform.edit_title')}</PageHeading>
          <ErrorState
            error={source.error}
            notFound={t('mqtt.not_found')}
            onRetry={() => void source.refetch()}
          />
        </>
      ) : (
        <Loading label={t('mqtt.loading')} />
      )}
    </section>
  );
}

function MqttForm({ source }: { source: MqttSource | null }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const editId = source?.id ?? null;
  const save = useSaveMqttSource(editId);
  const [name, setName] = useState(source?.name ?? '');
  const [url, setUrl] = useState(source?.url ?? '');
  const [username, setUsername] = useState(source?.username ?? '');
  const [password, setPassword] = useState('');
  const [forgetPassword, setForgetPassword] = useState(false);
  const [format, setFormat] = useState<MqttFormat>(source?.format ?? 'chirpstack');
  const [topics, setTopics] = useState(source ? source.topics.join('\n') : TOPIC_EXAMPLES.chirpstack);
  const [enabled, setEnabled] = useState(source?.enabled ?? true);
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const summaryRef = useRef<HTMLDivElement>(null);
  const refs = {
    name: useRef<HTMLInputElement>(null),
    url: useRef<HTMLInputElement>(null),
    username: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
    topics: useRef<HTMLTextAreaElement>(null),
    format: useRef<HTMLSelectElement>(null),
    enabled: useRef<HTMLInputElement>(null),
  };

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    requestAnimationFrame(() => {
      const first = FIELDS.find((field) => next.fields[field]);
      if (first) refs[first].current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function chooseFormat(next: MqttFormat) {
    // The example topic follows the format while the owner has not written their own.
    if (topics.trim() === '' || topics.trim() === TOPIC_EXAMPLES[format]) setTopics(TOPIC_EXAMPLES[next]);
    setFormat(next);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    const topicList = topics
      .split('\n')
      .map((topic) => topic.trim())
      .filter(Boolean);
    const found: FormErrors<FieldName> = noErrors();
    if (!name.trim()) found.fields.name = t('fielderror.required');
    if (!/^mqtts?:\/\/[^\s/]+/i.test(url.trim())) found.fields.url = t('mqttform.url_pattern');
    if (topicList.length === 0) found.fields.topics = t('mqttform.topics_required');
    if (Object.keys(found.fields).length > 0) {
      showErrors(found);
      return;
    }
    setErrors(noErrors());
    const input: MqttSourceInput = {
      name: name.trim(),
      url: url.trim(),
      username: username.trim() || null,
      topics: topicList,
      format,
      enabled,
      // Left empty on edit, the saved password stays; null removes it.
      ...(password !== '' ? { password } : forgetPassword ? { password: null } : {}),
    };
    save.mutate(input, {
      onSuccess: () => {
        announce(t(editId === null ? 'mqttform.created' : 'mqttform.saved', { name: name.trim() }));
        void navigate({ to: '/sensors/connect' });
      },
      onError: (err) => {
        if (err instanceof SessionExpiredError) return;
        showErrors(formErrors(err, FIELDS, t));
      },
    });
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <section className="page narrow">
      <Link className="back" to="/sensors/connect">
        ← {t('connect.back')}
      </Link>
      <PageHeading>{t(editId === null ? 'mqttform.add_title' : 'mqttform.edit_title')}</PageHeading>
      <form onSubmit={submit} noValidate className="sensors-form">
        {(errors.general.length > 0 || hasFieldErrors) && (
          <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
            {errors.general.length > 0 ? (
              errors.general.map((text) => <p key={text}>{text}</p>)
            ) : (
              <p>{t('error.fix_fields')}</p>
            )}
          </div>
        )}
        <Field
          id="mqtt-name"
          label={t('mqttform.name')}
          hint={t('mqttform.name_hint')}
          error={errors.fields.name}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.name}
              name="name"
              autoComplete="off"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field
          id="mqtt-url"
          label={t('mqttform.url')}
          hint={t('mqttform.url_hint')}
          error={errors.fields.url}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.url}
              name="url"
              type="url"
              inputMode="url"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              value={url}
              onChange={(e) => setUrl(e.target.value)}
            />
          )}
        </Field>
        <div className="field-row">
          <Field id="mqtt-username" label={t('mqttform.username')} error={errors.fields.username}>
            {(control) => (
              <input
                {...control}
                ref={refs.username}
                name="username"
                autoComplete="off"
                autoCapitalize="none"
                spellCheck={false}
                value={username}
                onChange={(e) => setUsername(e.target.value)}
              />
            )}
          </Field>
          <Field
            id="mqtt-password"
            label={t('mqttform.password')}
            hint={source?.has_password ? t('mqttform.password_keep') : t('mqttform.password_hint')}
            error={errors.fields.password}
          >
            {(control) => (
              <input
                {...control}
                ref={refs.password}
                name="password"
                type="password"
                autoComplete="new-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
        </div>
        {source?.has_password && (
          <div className="field">
            <label className="check">
              <input
                type="checkbox"
                name="forget_password"
                checked={forgetPassword}
                onChange={(e) => setForgetPassword(e.target.checked)}
              />
              <span>{t('mqttform.forget_password')}</span>
            </label>
          </div>
        )}
        <Field
          id="mqtt-format"
          label={t('mqttform.format')}
          hint={t(`mqttform.format_hint.${format}`)}
          error={errors.fields.format}
        >
          {(control) => (
            <select
              {...control}
              ref={refs.format}
              name="format"
              value={format}
              onChange={(e) => chooseFormat(e.target.value as MqttFormat)}
            >
              {MQTT_FORMATS.map((f) => (
                <option key={f} value={f}>
                  {t(`mqtt.format.${f}`)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id="mqtt-topics"
          label={t('mqttform.topics')}
          hint={t('mqttform.topics_hint', { example: TOPIC_EXAMPLES[format] })}
          error={errors.fields.topics}
        >
          {(control) => (
            <textarea
              {...control}
              ref={refs.topics}
              name="topics"
              rows={3}
              autoCapitalize="none"
              spellCheck={false}
              value={topics}
              onChange={(e) => setTopics(e.target.value)}
            />
          )}
        </Field>
        <div className={`field${errors.fields.enabled ? ' invalid' : ''}`}>
          <label className="check">
            <input
              ref={refs.enabled}
              type="checkbox"
              name="enabled"
              checked={enabled}
              onChange={(e) => setEnabled(e.target.checked)}
            />
            <span>{t('mqttform.enabled')}</span>
          </label>
          {errors.fields.enabled && <p className="field-error">{errors.fields.enabled}</p>}
        </div>
        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
            {save.isPending ? t('form.saving') : t(editId === null ? 'mqttform.create' : 'form.save')}
          </button>
          <Link className="button secondary" to="/sensors/connect">
            {t('form.cancel')}
          </Link>
        </div>
      </form>
    </section>
  );
}
