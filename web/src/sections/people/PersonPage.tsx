// A person's page (owners): their username and role; change the role, set a new password (they
// are signed out everywhere), remove them after a confirmation. An owner's own page says plainly
// that they cannot remove themselves or drop their own owner role (the API refuses both).
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { Field, type FormErrors, noErrors } from '../../ui/Field';
import { ownFormErrors } from '../../ui/field-rules';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, ErrorState, Loading } from '../../ui/States';
import { PERSON_RULES } from './AddPersonPage';
import { type Person, type Role, useChangePerson, usePerson, useRemovePerson } from './api';
import { RoleBadge } from './RoleBadge';
import { RoleChoice } from './RoleChoice';
import { texts } from './texts';

export default function PersonPage() {
  const { t } = useTexts(texts);
  const { id } = useParams({ strict: false }) as { id: string };
  const personId = Number(id);
  const [removing, setRemoving] = useState(false);
  const person = usePerson(personId, { active: !removing && Number.isInteger(personId) });

  return (
    <section className="page narrow people">
      <Link className="back" to="/people">
        ← {t('person.back')}
      </Link>
      {/* One heading for every state, so the focus it takes after a move stays on it. */}
      <PageHeading>{person.data ? person.data.name || person.data.username : t('people.title')}</PageHeading>
      {person.isPending && <Loading label={t('person.loading')} />}
      {person.isError && (
        <ErrorState
          error={person.error}
          notFound={t('person.not_found')}
          onRetry={() => void person.refetch()}
        />
      )}
      {person.data && <PersonDetail person={person.data} onRemoving={setRemoving} />}
    </section>
  );
}

function PersonDetail({ person, onRemoving }: { person: Person; onRemoving: (removing: boolean) => void }) {
  const { t } = useTexts(texts);
  const { session } = useSession();
  const self = person.id === session.user.id;
  return (
    <>
      <dl className="facts compact person-facts">
        <div>
          <dt>{t('person.username')}</dt>
          <dd>
            <span className="username">{person.username}</span>
          </dd>
        </div>
        <div>
          <dt>{t('person.role')}</dt>
          <dd>
            <RoleBadge role={person.role} />
          </dd>
        </div>
      </dl>
      {self ? <p className="notice notice-info">{t('person.self')}</p> : <ChangeRole person={person} />}
      {/* One's own password is changed under Account, with the current one (a new one set here
          would also end this very session). */}
      {!self && <SetEmail person={person} />}
      {!self && <SetPassword person={person} />}
      {!self && <Remove person={person} onRemoving={onRemoving} />}
    </>
  );
}

function ChangeRole({ person }: { person: Person }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const change = useChangePerson(person.id);
  const [role, setRole] = useState<Role>(person.role);
  // The saved role (after a save, or another owner's change) becomes the choice shown; the form
  // stays mounted so the focus stays on its button.
  const [savedRole, setSavedRole] = useState<Role>(person.role);
  if (savedRole !== person.role) {
    setSavedRole(person.role);
    setRole(person.role);
  }
  const name = person.name || person.username;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (change.isPending || role === person.role) return;
    change.mutate(
      { role },
      {
        onSuccess: () => announce(t(role === 'owner' ? 'role.saved_owner' : 'role.saved_staff', { name })),
        onError: (err) => {
          if (!(err instanceof SessionExpiredError)) {
            announce(t('role.failed', { reason: describeError(err, t) }), 'error');
          }
        },
      },
    );
  }

  return (
    <section className="panel person-panel" aria-labelledby="role-heading">
      <h2 id="role-heading">{t('role.title')}</h2>
      <form onSubmit={submit}>
        <RoleChoice
          name="person-role"
          legend={t('role.title')}
          value={role}
          onChange={setRole}
          legendHidden
        />
        <button
          type="submit"
          className="button primary"
          aria-disabled={change.isPending || role === person.role || undefined}
        >
          {change.isPending ? t('role.saving') : t('role.save')}
        </button>
      </form>
    </section>
  );
}

/** Their e-mail address, for the alerts the farm sends by e-mail (empty: none). */
function SetEmail({ person }: { person: Person }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const change = useChangePerson(person.id);
  const [email, setEmail] = useState(person.email ?? '');
  const [errors, setErrors] = useState<FormErrors<'email'>>(noErrors);
  const inputRef = useRef<HTMLInputElement>(null);
  const name = person.name || person.username;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (change.isPending) return;
    setErrors(noErrors());
    const address = email.trim();
    change.mutate(
      { email: address || null },
      {
        onSuccess: () => announce(t(address ? 'email.done' : 'email.removed', { name, email: address })),
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const next = ownFormErrors(err, ['email'] as const, t, PERSON_RULES);
          setErrors(next);
          if (next.fields.email) requestAnimationFrame(() => inputRef.current?.focus());
          else announce(next.general.join(' '), 'error');
        },
      },
    );
  }

  return (
    <section className="panel person-panel" aria-labelledby="email-heading">
      <h2 id="email-heading">{t('email.title')}</h2>
      <form onSubmit={submit} noValidate>
        <Field id="person-email" label={t('email.label')} hint={t('email.hint')} error={errors.fields.email}>
          {(control) => (
            <input
              {...control}
              ref={inputRef}
              name="email"
              type="email"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={254}
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="button primary" aria-disabled={change.isPending || undefined}>
          {change.isPending ? t('password.saving') : t('email.save')}
        </button>
      </form>
    </section>
  );
}

function SetPassword({ person }: { person: Person }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const change = useChangePerson(person.id);
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FormErrors<'password'>>(noErrors);
  const inputRef = useRef<HTMLInputElement>(null);
  const name = person.name || person.username;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (change.isPending) return;
    setErrors(noErrors());
    change.mutate(
      { password },
      {
        onSuccess: () => {
          setPassword('');
          announce(t('password.done', { name }));
        },
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const next = ownFormErrors(err, ['password'] as const, t, PERSON_RULES);
          setErrors(next);
          if (next.fields.password) requestAnimationFrame(() => inputRef.current?.focus());
          else announce(next.general.join(' '), 'error');
        },
      },
    );
  }

  return (
    <section className="panel person-panel" aria-labelledby="password-heading">
      <h2 id="password-heading">{t('password.title')}</h2>
      <p className="muted">{t('password.intro', { name })}</p>
      <form onSubmit={submit} noValidate>
        <Field
          id="person-new-password"
          label={t('password.new')}
          hint={t('password.hint')}
          error={errors.fields.password}
        >
          {(control) => (
            <input
              {...control}
              ref={inputRef}
              name="new-password"
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
        <button type="submit" className="button primary" aria-disabled={change.isPending || undefined}>
          {change.isPending ? t('password.saving') : t('password.save')}
        </button>
      </form>
    </section>
  );
}

function Remove({ person, onRemoving }: { person: Person; onRemoving: (removing: boolean) => void }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const remove = useRemovePerson();
  const [asking, setAsking] = useState(false);
  const name = person.name || person.username;

  function confirm() {
    onRemoving(true);
    remove.mutate(person.id, {
      onSuccess: () => {
        announce(t('remove.done', { name }));
        setAsking(false);
        void navigate({ to: '/people' });
      },
      onError: (err) => {
        onRemoving(false);
        setAsking(false);
        if (!(err instanceof SessionExpiredError)) {
          announce(t('remove.failed', { name, reason: describeError(err, t) }), 'error');
        }
      },
    });
  }

  return (
    <section className="panel person-panel" aria-labelledby="remove-heading">
      <h2 id="remove-heading">{t('remove.title')}</h2>
      <p className="muted">{t('remove.intro', { name })}</p>
      <button type="button" className="button danger-outline" onClick={() => setAsking(true)}>
        {t('remove.button', { name })}
      </button>
      {asking && (
        <ConfirmDialog
          title={t('remove.confirm_title', { name })}
          confirmLabel={remove.isPending ? t('remove.busy') : t('remove.confirm')}
          tone="danger"
          busy={remove.isPending}
          onConfirm={confirm}
          onCancel={() => setAsking(false)}
        >
          <p>{t('remove.confirm_body', { name, username: person.username })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
