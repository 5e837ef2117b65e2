// Sign in with the farm's code, a username and a password. After a sign-out or an expired
// session the page says why; an expired session's form starts with the same farm and user.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { unwrap } from '../api/client';
import { Field } from '../ui/Field';
import { PageHeading } from '../ui/PageHeading';
import { describeError } from '../ui/States';
import { requestPageFocus } from './focus';
import { useI18n } from './i18n';
import { useSessionState } from './session';

export function SignIn() {
  const { t } = useI18n();
  const { api, notice, lastAccount: account, signIn } = useSessionState();
  const [tenantcode, setTenantcode] = useState(account?.tenantcode ?? '');
  const [username, setUsername] = useState(account?.username ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [missing, setMissing] = useState<string[]>([]);
  const errorRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (error) errorRef.current?.focus();
  }, [error]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const empty = [
      tenantcode.trim() ? null : 'tenantcode',
      username.trim() ? null : 'username',
      password ? null : 'password',
    ].filter((name): name is string => name !== null);
    setMissing(empty);
    if (empty.length > 0) {
      setError(t('signin.required'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // No `language` field: that would pin the token's language; Accept-Language follows the app.
      const body = await unwrap(
        api.POST('/api/auth/login', {
          body: { tenantcode: tenantcode.trim(), username: username.trim(), password },
        }),
      );
      if (body.meta.status_code !== 0 || !('data' in body)) {
        setError(body.meta.message);
        return;
      }
      const { token, expires_at, user, tenant } = body.data;
      requestPageFocus();
      signIn({
        token,
        expiresAt: expires_at,
        user: { id: user.id, username: user.username, name: user.name, role: user.role },
        tenant: { code: tenant.code, name: tenant.name },
      });
    } catch (err) {
      setError(describeError(err, t));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="page signin">
      <PageHeading>{t('signin.title')}</PageHeading>
      <p className="lead">{t('signin.intro')}</p>
      {notice && (
        <p className="notice notice-info" role="status">
          {t(notice)}
        </p>
      )}
      <form onSubmit={submit} noValidate aria-describedby={error ? 'signin-error' : undefined}>
        {error && (
          <p id="signin-error" className="notice notice-error" role="alert" tabIndex={-1} ref={errorRef}>
            {error}
          </p>
        )}
        <Field
          id="signin-tenant"
          label={t('signin.tenant')}
          hint={t('signin.tenant_hint')}
          error={missing.includes('tenantcode') ? t('fielderror.required') : undefined}
        >
          {(control) => (
            <input
              {...control}
              name="tenantcode"
              autoComplete="organization"
              autoCapitalize="none"
              spellCheck={false}
              required
              value={tenantcode}
              onChange={(event) => setTenantcode(event.target.value)}
            />
          )}
        </Field>
        <Field
          id="signin-username"
          label={t('signin.username')}
          error={missing.includes('username') ? t('fielderror.required') : undefined}
        >
          {(control) => (
            <input
              {...control}
              name="username"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              required
              value={username}
              onChange={(event) => setUsername(event.target.value)}
            />
          )}
        </Field>
        <Field
          id="signin-password"
          label={t('signin.password')}
          error={missing.includes('password') ? t('fielderror.required') : undefined}
        >
          {(control) => (
            <input
              {...control}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="button primary" aria-disabled={busy || undefined}>
          {busy ? t('signin.submitting') : t('signin.submit')}
        </button>
      </form>
    </section>
  );
}
