import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, login, NetworkError, type Session } from '../api';
import { type MessageKey, useI18n } from '../i18n';

interface SignInProps {
  /** Why the user is here: an expired session, a sign-out. */
  notice: MessageKey | null;
  /** The account of the session that just ended, to sign in again quickly. */
  account: { tenantcode: string; username: string } | null;
  onSignedIn: (session: Session) => void;
}

export function SignIn({ notice, account, onSignedIn }: SignInProps) {
  const { t, language } = useI18n();
  const [tenantcode, setTenantcode] = useState(account?.tenantcode ?? '');
  const [username, setUsername] = useState(account?.username ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const errorRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (error) errorRef.current?.focus();
  }, [error]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!tenantcode.trim() || !username.trim() || !password) {
      setError(t('signin.required'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const result = await login(
        { tenantcode: tenantcode.trim(), username: username.trim(), password },
        language,
      );
      if (result.ok) {
        onSignedIn(result.session);
        return;
      }
      setError(result.message);
    } catch (err) {
      setError(
        err instanceof NetworkError
          ? t('error.network')
          : err instanceof ApiError
            ? err.message
            : String(err),
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="page signin">
      <h1>{t('signin.title')}</h1>
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
        <div className="field">
          <label htmlFor="signin-tenant">{t('signin.tenant')}</label>
          <input
            id="signin-tenant"
            name="tenantcode"
            autoComplete="organization"
            autoCapitalize="none"
            spellCheck={false}
            required
            value={tenantcode}
            aria-describedby="signin-tenant-hint"
            onChange={(event) => setTenantcode(event.target.value)}
          />
          <p id="signin-tenant-hint" className="hint">
            {t('signin.tenant_hint')}
          </p>
        </div>
        <div className="field">
          <label htmlFor="signin-username">{t('signin.username')}</label>
          <input
            id="signin-username"
            name="username"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
            value={username}
            onChange={(event) => setUsername(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="signin-password">{t('signin.password')}</label>
          <input
            id="signin-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </div>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? t('signin.submitting') : t('signin.submit')}
        </button>
      </form>
    </section>
  );
}
