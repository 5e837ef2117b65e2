// Add a key for a program (owners): its name, what it may do, and optionally the last day it
// works. The API checks them (a name is needed, the day must not be past); its reasons are shown
// next to their field, what was typed stays, and the focus goes to the first thing to fix. The
// new key is then shown once, on the keys page.
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, noErrors } from '../../ui/Field';
import { type OwnRule, ownFormErrors } from '../../ui/field-rules';
import { PageHeading } from '../../ui/PageHeading';
import { type Role, useAddApiKey } from './api';
import { useRevealedKey } from './PeopleSection';
import { RoleChoice } from './RoleChoice';
import { texts } from './texts';

const FIELDS = ['name', 'role', 'expires_at'] as const;
type FieldName = (typeof FIELDS)[number];

type Key = keyof (typeof texts)['en'];
const KEY_RULES: readonly OwnRule<Key>[] = [
  {
    field: 'expires_at',
    match: [/^must be in the future$/, /^phải là một thời điểm trong tương lai$/],
    text: 'fielderror.future_day',
  },
  { field: 'expires_at', match: [/^must be a timestamp/, /^phải là thời điểm/], text: 'fielderror.day' },
];

/** The end of the chosen day (YYYY-MM-DD) where the owner is, as the API's instant. */
function endOfDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number);
  if (!year || !month || !date) return day; // the API names what is wrong with it
  return new Date(year, month - 1, date, 23, 59, 59).toISOString();
}

/** Today where the owner is, as YYYY-MM-DD (the earliest day offered). */
function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export default function AddKeyPage() {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const add = useAddApiKey();
  const { reveal } = useRevealedKey();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('staff');
  const [lastDay, setLastDay] = useState('');
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const refs = {
    name: useRef<HTMLInputElement>(null),
    expires_at: useRef<HTMLInputElement>(null),
  };
  const summaryRef = useRef<HTMLDivElement>(null);

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    requestAnimationFrame(() => {
      const first = FIELDS.find((f) => next.fields[f]);
      if (first === 'role') document.querySelector<HTMLInputElement>('input[name="key-role"]')?.focus();
      else if (first) refs[first].current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (add.isPending) return;
    setErrors(noErrors());
    add.mutate(
      { name, role, ...(lastDay ? { expires_at: endOfDay(lastDay) } : {}) },
      {
        onSuccess: (made) => {
          reveal({ id: made.id, name: made.name, key: made.key });
          announce(t('addkey.done', { name: made.name }));
          void navigate({ to: '/people/keys' });
        },
        onError: (err) => {
          if (!(err instanceof SessionExpiredError)) showErrors(ownFormErrors(err, FIELDS, t, KEY_RULES));
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <section className="page narrow people">
      <Link className="back" to="/people/keys">
        ← {t('addkey.back')}
      </Link>
      <PageHeading>{t('addkey.title')}</PageHeading>
      <p className="lead">{t('addkey.intro')}</p>
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
        <Field id="key-name" label={t('addkey.name')} hint={t('addkey.name_hint')} error={errors.fields.name}>
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
        <RoleChoice
          name="key-role"
          legend={t('addkey.role')}
          value={role}
          onChange={setRole}
          error={errors.fields.role}
          hints={{ staff: t('addkey.staff_hint'), owner: t('addkey.owner_hint') }}
        />
        <Field
          id="key-expires"
          label={t('addkey.expires')}
          hint={t('addkey.expires_hint')}
          error={errors.fields.expires_at}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.expires_at}
              name="expires_at"
              type="date"
              min={today()}
              value={lastDay}
              onChange={(event) => setLastDay(event.target.value)}
            />
          )}
        </Field>
        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={add.isPending || undefined}>
            {add.isPending ? t('addkey.saving') : t('addkey.submit')}
          </button>
          <Link className="button secondary" to="/people/keys">
            {t('addkey.cancel')}
          </Link>
        </div>
      </form>
    </section>
  );
}
