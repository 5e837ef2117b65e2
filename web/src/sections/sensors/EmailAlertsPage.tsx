// E-mail alerts (owners): whether alerts and devices going offline are e-mailed, from which
// severity, and to whom (people without an e-mail address are shown, with where to add one). When
// the server cannot send e-mail yet, a note says so; the choices are kept for when it can.
import { Link } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import {
  type EmailSettings,
  type NotificationSettings,
  type Person,
  SEVERITIES,
  type Severity,
  useEmailSettings,
  usePeople,
  useSaveEmailSettings,
} from './api';
import { OwnersOnly } from './parts';
import { texts } from './texts';

const FIELDS = ['enabled', 'min_severity', 'user_ids'] as const;
type FieldName = (typeof FIELDS)[number];

export default function EmailAlertsPage() {
  const { t } = useTexts(texts);
  return (
    <OwnersOnly title={t('email.title')}>
      <EmailAlertsLoader />
    </OwnersOnly>
  );
}

function EmailAlertsLoader() {
  const { t } = useTexts(texts);
  const settings = useEmailSettings();
  const people = usePeople();
  const failed = settings.isError ? settings : people.isError ? people : null;
  return (
    <section className="page narrow email-alerts">
      <Link className="back" to="/sensors">
        ← {t('device.back')}
      </Link>
      <PageHeading>{t('email.title')}</PageHeading>
      <p className="lead">{t('email.intro')}</p>
      {settings.data && settings.data.smtp_configured === false && (
        <div className="notice notice-warning">
          <p>{t('email.no_smtp')}</p>
        </div>
      )}
      {failed ? (
        <ErrorState error={failed.error} onRetry={() => void failed.refetch()} />
      ) : settings.data && people.data ? (
        <EmailForm settings={settings.data} people={people.data} />
      ) : (
        <Loading label={t('email.loading')} />
      )}
    </section>
  );
}

function EmailForm({ settings, people }: { settings: NotificationSettings; people: Person[] }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const save = useSaveEmailSettings();
  const selfId = useSession().session.user.id;
  const [enabled, setEnabled] = useState(settings.email.enabled);
  const [minSeverity, setMinSeverity] = useState<Severity>(settings.email.min_severity);
  const [chosen, setChosen] = useState<Set<number>>(() => new Set(settings.email.user_ids));
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const summaryRef = useRef<HTMLDivElement>(null);

  function toggle(id: number, on: boolean) {
    setChosen((previous) => {
      const next = new Set(previous);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    // Only people of the farm as it is now (someone removed meanwhile drops out).
    const userIds = people.filter((p) => chosen.has(p.id)).map((p) => p.id);
    const email: EmailSettings = { enabled, min_severity: minSeverity, user_ids: userIds };
    if (enabled && userIds.length === 0) {
      setErrors({ fields: { user_ids: t('email.choose_someone') }, general: [] });
      requestAnimationFrame(() => document.getElementById('email-people-legend')?.focus());
      return;
    }
    setErrors(noErrors());
    save.mutate(email, {
      onSuccess: () => announce(t(enabled ? 'email.saved_on' : 'email.saved_off')),
      onError: (err) => {
        if (err instanceof SessionExpiredError) return;
        setErrors(formErrors(err, FIELDS, t));
        requestAnimationFrame(() => summaryRef.current?.focus());
      },
    });
  }

  const problems = [...errors.general, ...Object.values(errors.fields)].filter(Boolean);
  const withEmail = people.filter((p) => p.email);

  return (
    <form onSubmit={submit} noValidate className="sensors-form">
      {problems.length > 0 && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {problems.map((text) => (
            <p key={text}>{text}</p>
          ))}
        </div>
      )}
      <div className="field">
        <label className="check">
          <input
            type="checkbox"
            name="enabled"
            checked={enabled}
            onChange={(e) => setEnabled(e.target.checked)}
          />
          <span>{t('email.enabled')}</span>
        </label>
      </div>
      <div className="field">
        <label htmlFor="email-severity">{t('email.min_severity')}</label>
        <select
          id="email-severity"
          name="min_severity"
          aria-describedby="email-severity-hint"
          value={minSeverity}
          onChange={(e) => setMinSeverity(e.target.value as Severity)}
        >
          {[...SEVERITIES].reverse().map((s) => (
            <option key={s} value={s}>
              {t(`email.from.${s}`)}
            </option>
          ))}
        </select>
        <p id="email-severity-hint" className="hint">
          {t('email.min_severity_hint')}
        </p>
      </div>
      <fieldset
        className={`people-choice${errors.fields.user_ids ? ' invalid' : ''}`}
        aria-describedby={errors.fields.user_ids ? 'email-people-error' : undefined}
      >
        <legend id="email-people-legend" tabIndex={-1}>
          {t('email.people')}
        </legend>
        {withEmail.length === 0 && <p className="hint">{t('email.nobody_has_email')}</p>}
        <ul className="people-list">
          {people.map((person) => {
            const id = `email-person-${person.id}`;
            return (
              <li key={person.id}>
                {person.email ? (
                  <label htmlFor={id} className="person-choice">
                    <input
                      id={id}
                      type="checkbox"
                      checked={chosen.has(person.id)}
                      onChange={(e) => toggle(person.id, e.target.checked)}
                    />
                    <span>
                      <span className="person-name">{person.name || person.username}</span>{' '}
                      <span className="description">{person.email}</span>
                    </span>
                  </label>
                ) : (
                  <div className="person-choice no-email">
                    <span>
                      <span className="person-name">{person.name || person.username}</span>{' '}
                      <span className="description">
                        {t('email.no_address')}{' '}
                        {person.id === selfId ? (
                          <Link to="/account">{t('email.add_own')}</Link>
                        ) : (
                          <Link to="/people/$id" params={{ id: String(person.id) }}>
                            {t('email.add_address', { name: person.name || person.username })}
                          </Link>
                        )}
                      </span>
                    </span>
                  </div>
                )}
              </li>
            );
          })}
        </ul>
        {errors.fields.user_ids && (
          <p id="email-people-error" className="field-error">
            {errors.fields.user_ids}
          </p>
        )}
      </fieldset>
      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
          {save.isPending ? t('form.saving') : t('form.save')}
        </button>
      </div>
    </form>
  );
}
