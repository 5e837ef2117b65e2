// Add a person (owners): username, name, a first password and the role. The API checks them
// (username taken or badly written, password too short); its reasons are shown next to their
// field, what was typed stays, and the focus goes to the first thing to fix.
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, noErrors } from '../../ui/Field';
import { type OwnRule, ownFormErrors } from '../../ui/field-rules';
import { PageHeading } from '../../ui/PageHeading';
import { type Role, useAddPerson } from './api';
import { RoleChoice } from './RoleChoice';
import { texts } from './texts';

const FIELDS = ['username', 'name', 'password', 'role'] as const;
type FieldName = (typeof FIELDS)[number];

type Key = keyof (typeof texts)['en'];
export const PERSON_RULES: readonly OwnRule<Key>[] = [
  {
    field: 'password',
    match: [/^must be at least/, /^phải lớn hơn hoặc bằng/, /^must not be empty$/, /^không được để trống$/],
    text: 'fielderror.password_short',
  },
  {
    field: 'username',
    match: [/^has an invalid format$/, /^không đúng định dạng$/],
    text: 'fielderror.username_format',
  },
  {
    field: 'email',
    match: [/format|định dạng|pattern/],
    text: 'email.invalid',
  },
];

export default function AddPersonPage() {
  const { t } = useTexts(texts);
  const { session } = useSession();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const add = useAddPerson();
  const [username, setUsername] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('staff');
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const refs = {
    username: useRef<HTMLInputElement>(null),
    name: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
  };
  const summaryRef = useRef<HTMLDivElement>(null);

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    requestAnimationFrame(() => {
      const first = FIELDS.find((f) => next.fields[f]);
      if (first === 'role') document.querySelector<HTMLInputElement>('input[name="person-role"]')?.focus();
      else if (first) refs[first].current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (add.isPending) return;
    setErrors(noErrors());
    add.mutate(
      { username: username.trim(), password, role, ...(name.trim() ? { name: name.trim() } : {}) },
      {
        onSuccess: (person) => {
          announce(t('add.done', { name: person.name || person.username, username: person.username }));
          void navigate({ to: '/people' });
        },
        onError: (err) => {
          if (!(err instanceof SessionExpiredError)) showErrors(ownFormErrors(err, FIELDS, t, PERSON_RULES));
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <section className="page narrow people">
      <Link className="back" to="/people">
        ← {t('add.back')}
      </Link>
      <PageHeading>{t('add.title')}</PageHeading>
      <p className="lead">{t('add.intro', { code: session.tenant.code })}</p>
      <form onSubmit={submit} noValidate className="person-form">
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
          id="person-username"
          label={t('add.username')}
          hint={t('add.username_hint')}
          error={errors.fields.username}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.username}
              name="username"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={100}
              value={username}
              onChange={(event) => setUsername(event.target.value)}
            />
          )}
        </Field>
        <Field id="person-name" label={t('add.name')} hint={t('add.name_hint')} error={errors.fields.name}>
          {(control) => (
            <input
              {...control}
              ref={refs.name}
              name="name"
              autoComplete="off"
              maxLength={255}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        <Field
          id="person-password"
          label={t('add.password')}
          hint={t('add.password_hint')}
          error={errors.fields.password}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.password}
              name="password"
              type="text"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={1000}
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          )}
        </Field>
        <RoleChoice
          name="person-role"
          legend={t('add.role')}
          value={role}
          onChange={setRole}
          error={errors.fields.role}
        />
        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={add.isPending || undefined}>
            {add.isPending ? t('add.saving') : t('add.submit')}
          </button>
          <Link className="button secondary" to="/people">
            {t('add.cancel')}
          </Link>
        </div>
      </form>
    </section>
  );
}
