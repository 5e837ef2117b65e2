// Account: the signed-in person's own name, e-mail and language, and their password. Saving a
// language switches the app to it at once (and it is used at the next sign-in in another browser);
// the API's refusals are shown next to the field they concern, in plain words.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { LANGUAGES, type Language } from '../../app/i18n';
import { useSession, useSessionState } from '../../app/session';
import { type SectionI18n, useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import { type Account, useAccount, useChangePassword, useSaveAccount } from './api';
import { texts } from './texts';
import './account.css';

type T = SectionI18n<keyof (typeof texts)['en'] & string>;

export default function AccountPage() {
  const i18n = useTexts(texts);
  const { t } = i18n;
  const { session } = useSession();
  const account = useAccount();

  return (
    <section className="page narrow account-page">
      <PageHeading>{t('account.title')}</PageHeading>
      <p className="lead">{t('account.intro')}</p>
      {account.isPending && <Loading label={t('account.loading')} />}
      {account.isError && <ErrorState error={account.error} onRetry={() => void account.refetch()} />}
      {account.data && (
        <>
          <dl className="facts compact account-facts">
            <div>
              <dt>{t('account.username')}</dt>
              <dd>{account.data.username}</dd>
            </div>
            <div>
              <dt>{t('account.role')}</dt>
              <dd>{t(account.data.role === 'owner' ? 'role.owner' : 'role.staff')}</dd>
            </div>
            <div>
              <dt>{t('account.farm')}</dt>
              <dd>{session.tenant.name}</dd>
            </div>
          </dl>
          <DetailsForm account={account.data} i18n={i18n} />
          <PasswordForm username={account.data.username} i18n={i18n} />
        </>
      )}
    </section>
  );
}

const DETAIL_FIELDS = ['name', 'email', 'language'] as const;
type DetailField = (typeof DETAIL_FIELDS)[number];

/** The API's refusal in the app's words, for the fields whose server messages are technical. */
function detailErrors(err: unknown, i18n: T): FormErrors<DetailField> {
  const errors = formErrors(err, DETAIL_FIELDS, i18n.t);
  if (err instanceof ApiError) {
    for (const fieldError of err.fieldErrors) {
      if (fieldError.field === 'email' && !/taken|sử dụng/.test(fieldError.message)) {
        errors.fields.email = i18n.t('account.email_invalid');
      }
      if (fieldError.field === 'name' && /empty|trống|required|bắt buộc/.test(fieldError.message)) {
        errors.fields.name = i18n.t('account.name_required');
      }
    }
  }
  return errors;
}

function DetailsForm({ account, i18n }: { account: Account; i18n: T }) {
  const { t, language, setLanguage } = i18n;
  const announce = useAnnounce();
  const { session, signIn } = useSessionState();
  const save = useSaveAccount();
  const [name, setName] = useState(account.name);
  const [email, setEmail] = useState(account.email ?? '');
  const [chosen, setChosen] = useState<Language>(account.language ?? language);
  const [errors, setErrors] = useState<FormErrors<DetailField>>(noErrors);
  const [saved, setSaved] = useState(false);
  const summaryRef = useRef<HTMLDivElement>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);

  function showErrors(next: FormErrors<DetailField>) {
    setErrors(next);
    requestAnimationFrame(() => {
      if (next.fields.name) nameRef.current?.focus();
      else if (next.fields.email) emailRef.current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    setSaved(false);
    if (name.trim() === '') {
      showErrors({ fields: { name: t('account.name_required') }, general: [] });
      return;
    }
    setErrors(noErrors());
    save.mutate(
      { name: name.trim(), email: email.trim() === '' ? null : email.trim(), language: chosen },
      {
        onSuccess: (updated) => {
          setSaved(true);
          if (session && updated.name !== session.user.name) {
            signIn({ ...session, user: { ...session.user, name: updated.name } });
          }
          const next = updated.language ?? language;
          if (next !== language) {
            // The app switches now; the confirmation is said in the new language, once it is shown.
            setLanguage(next);
            setTimeout(() => announce(texts[next]['account.saved']), 100);
          } else {
            announce(t('account.saved'));
          }
        },
        onError: (err) => {
          if (!(err instanceof SessionExpiredError)) showErrors(detailErrors(err, i18n));
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <form className="account-form" onSubmit={submit} noValidate aria-labelledby="account-details-title">
      <h2 id="account-details-title">{t('account.details')}</h2>
      {(errors.general.length > 0 || hasFieldErrors) && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {errors.general.length > 0 ? (
            errors.general.map((message) => <p key={message}>{message}</p>)
          ) : (
            <p>{t('error.fix_fields')}</p>
          )}
        </div>
      )}
      <Field
        id="account-name"
        label={t('account.name')}
        hint={t('account.name_hint')}
        error={errors.fields.name}
      >
        {(control) => (
          <input
            {...control}
            ref={nameRef}
            name="name"
            autoComplete="name"
            maxLength={200}
            required
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        )}
      </Field>
      <Field
        id="account-email"
        label={t('account.email')}
        hint={t('account.email_hint')}
        error={errors.fields.email}
      >
        {(control) => (
          <input
            {...control}
            ref={emailRef}
            name="email"
            type="email"
            inputMode="email"
            autoComplete="email"
            autoCapitalize="none"
            spellCheck={false}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        )}
      </Field>
      <Field
        id="account-language"
        label={t('account.language')}
        hint={t('account.language_hint')}
        error={errors.fields.language}
      >
        {(control) => (
          <select
            {...control}
            name="language"
            value={chosen}
            onChange={(event) => setChosen(event.target.value as Language)}
          >
            {LANGUAGES.map((code) => (
              <option key={code} value={code} lang={code}>
                {t(`lang.${code}`)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
          {save.isPending ? t('account.saving') : t('account.save')}
        </button>
      </div>
      {saved && !save.isPending && <p className="account-done">{t('account.saved')}</p>}
    </form>
  );
}

const PASSWORD_FIELDS = ['current_password', 'new_password', 'repeat'] as const;
type PasswordField = (typeof PASSWORD_FIELDS)[number];

function passwordErrors(err: unknown, i18n: T): FormErrors<PasswordField> {
  const errors = formErrors(err, PASSWORD_FIELDS, i18n.t);
  if (err instanceof ApiError) {
    for (const fieldError of err.fieldErrors) {
      // The only refusals of these fields: a wrong current password, a new one too short.
      if (fieldError.field === 'current_password') errors.fields.current_password = i18n.t('password.wrong');
      if (fieldError.field === 'new_password') errors.fields.new_password = i18n.t('password.too_short');
    }
  }
  return errors;
}

function PasswordForm({ username, i18n }: { username: string; i18n: T }) {
  const { t } = i18n;
  const announce = useAnnounce();
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<FormErrors<PasswordField>>(noErrors);
  const [done, setDone] = useState(false);
  const refs = {
    current_password: useRef<HTMLInputElement>(null),
    new_password: useRef<HTMLInputElement>(null),
    repeat: useRef<HTMLInputElement>(null),
  };
  const summaryRef = useRef<HTMLDivElement>(null);
  const doneRef = useRef<HTMLParagraphElement>(null);
  // Done: the fields are emptied, so the focus goes to the sentence that says so.
  useEffect(() => {
    if (done) doneRef.current?.focus();
  }, [done]);

  function showErrors(found: FormErrors<PasswordField>) {
    setErrors(found);
    requestAnimationFrame(() => {
      const first = PASSWORD_FIELDS.find((field) => found.fields[field]);
      if (first) refs[first].current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (change.isPending) return;
    setDone(false);
    const missing: FormErrors<PasswordField> = noErrors();
    if (!current) missing.fields.current_password = t('password.required');
    if (!next) missing.fields.new_password = t('password.required');
    else if (next.length < 8) missing.fields.new_password = t('password.too_short');
    if (next && repeat !== next) missing.fields.repeat = t('password.mismatch');
    if (Object.keys(missing.fields).length > 0) {
      showErrors(missing);
      return;
    }
    setErrors(noErrors());
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
          setRepeat('');
          setDone(true);
          announce(t('password.done'));
        },
        onError: (err) => {
          if (!(err instanceof SessionExpiredError)) showErrors(passwordErrors(err, i18n));
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;
  const input = (field: PasswordField, value: string, set: (v: string) => void, autoComplete: string) =>
    function PasswordInput(control: Parameters<Parameters<typeof Field>[0]['children']>[0]) {
      return (
        <input
          {...control}
          ref={refs[field]}
          name={field}
          type="password"
          autoComplete={autoComplete}
          required
          value={value}
          onChange={(event) => set(event.target.value)}
        />
      );
    };

  return (
    <form className="account-form" onSubmit={submit} noValidate aria-labelledby="account-password-title">
      <h2 id="account-password-title">{t('password.title')}</h2>
      {done && (
        <p className="notice notice-success account-done" tabIndex={-1} ref={doneRef}>
          {t('password.done')}
        </p>
      )}
      {(errors.general.length > 0 || hasFieldErrors) && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {errors.general.length > 0 ? (
            errors.general.map((message) => <p key={message}>{message}</p>)
          ) : (
            <p>{t('error.fix_fields')}</p>
          )}
        </div>
      )}
      {/* The username, for password managers: they save the new password for the right account. */}
      <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
      <Field
        id="account-current-password"
        label={t('password.current')}
        error={errors.fields.current_password}
      >
        {input('current_password', current, setCurrent, 'current-password')}
      </Field>
      <Field
        id="account-new-password"
        label={t('password.new')}
        hint={t('password.new_hint')}
        error={errors.fields.new_password}
      >
        {input('new_password', next, setNext, 'new-password')}
      </Field>
      <Field id="account-repeat-password" label={t('password.repeat')} error={errors.fields.repeat}>
        {input('repeat', repeat, setRepeat, 'new-password')}
      </Field>
      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={change.isPending || undefined}>
          {change.isPending ? t('password.changing') : t('password.submit')}
        </button>
      </div>
    </form>
  );
}
