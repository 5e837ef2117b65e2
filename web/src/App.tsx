// The shell: language, session, header, and the page for the current route.
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  ApiError,
  apiFor,
  loadSession,
  NetworkError,
  type Session,
  SessionExpiredError,
  saveSession,
} from './api';
import { EndpointDetail } from './components/EndpointDetail';
import { EndpointForm } from './components/EndpointForm';
import { Header } from './components/Header';
import { LoginAlerts } from './components/LoginAlerts';
import { SignIn } from './components/SignIn';
import { StaffNotice } from './components/StaffNotice';
import { WebhookList } from './components/WebhookList';
import {
  type I18n,
  I18nContext,
  initialLanguage,
  type Language,
  type MessageKey,
  makeTranslator,
  useI18n,
} from './i18n';
import { hrefFor, navigate, type Route, requestPageFocus, useRoute } from './router';
import { SessionContext, type SessionContextValue } from './session';

/** A secret the API answered once (create, rotate), kept in memory only until dismissed. */
export interface RevealedSecret {
  endpointId: string;
  secret: string;
  reason: 'created' | 'rotated';
}

export function App() {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  const [session, setSession] = useState<Session | null>(loadSession);
  const [signInNotice, setSignInNotice] = useState<MessageKey | null>(null);
  const i18n: I18n = useMemo(() => ({ language, ...makeTranslator(language) }), [language]);

  useEffect(() => {
    document.documentElement.lang = language;
    document.title = `${i18n.t('app.name')} · ${i18n.t('nav.webhooks')}`;
    localStorage.setItem('furrow.language', language);
  }, [language, i18n]);

  // Who was signed in: an expired session's sign-in form starts with the same tenant and user.
  // After a sign-out it starts empty (the next person at this computer may be someone else).
  const [lastAccount, setLastAccount] = useState<{ tenantcode: string; username: string } | null>(null);
  const endSession = useCallback(
    (notice: MessageKey) => {
      setLastAccount(
        session && notice === 'signin.expired'
          ? { tenantcode: session.tenant.code, username: session.user.username }
          : null,
      );
      saveSession(null);
      setSession(null);
      setSignInNotice(notice);
    },
    [session],
  );

  const checkedToken = useRef<string | null>(null);
  const signIn = useCallback((next: Session) => {
    checkedToken.current = next.token; // fresh from the login answer
    requestPageFocus();
    saveSession(next);
    setSignInNotice(null);
    setSession(next);
  }, []);

  // A session kept from earlier in this tab is checked once: the token may have expired or
  // been revoked, and the user's role may have changed.
  useEffect(() => {
    if (!session || checkedToken.current === session.token) return;
    checkedToken.current = session.token;
    apiFor(session, language)
      .me()
      .then(({ user, tenant }) => {
        const next: Session = {
          ...session,
          user: { id: user.id, username: user.username, name: user.name, role: user.role },
          tenant: { code: tenant.code, name: tenant.name },
        };
        saveSession(next);
        setSession((current) => (current?.token === next.token ? next : current));
      })
      .catch((err) => {
        if (err instanceof SessionExpiredError) endSession('signin.expired');
      });
  }, [session, language, endSession]);

  const signOut = useCallback(async () => {
    if (session) {
      // Revoke the token on the server; the screen signs out whatever the answer.
      await apiFor(session, language)
        .logout()
        .catch(() => {});
    }
    endSession('signin.signed_out');
  }, [session, language, endSession]);

  return (
    <I18nContext.Provider value={i18n}>
      <a className="skip-link" href="#main">
        {i18n.t('app.skip')}
      </a>
      <Header session={session} onLanguage={setLanguage} onSignOut={signOut} />
      <main id="main" tabIndex={-1}>
        {session ? (
          <SignedIn session={session} onExpired={() => endSession('signin.expired')} />
        ) : (
          <SignIn notice={signInNotice} account={lastAccount} onSignedIn={signIn} />
        )}
      </main>
    </I18nContext.Provider>
  );
}

interface Flash {
  text: string;
  tone: 'info' | 'error';
  /** The page it belongs to: a message never follows the user to another page. */
  href: string;
  id: number;
}

function SignedIn({ session, onExpired }: { session: Session; onExpired: () => void }) {
  const { language, t } = useI18n();
  const route = useRoute();
  const [flash, setFlash] = useState<Flash | null>(null);
  const [revealed, setRevealed] = useState<RevealedSecret | null>(null);
  const flashCounter = useRef(0);

  const api = useMemo(() => apiFor(session, language), [session, language]);

  const describeError = useCallback(
    (err: unknown): string => {
      if (err instanceof SessionExpiredError) {
        onExpired();
        return '';
      }
      if (err instanceof NetworkError) return t('error.network');
      if (err instanceof ApiError) return err.message;
      return t('error.generic', { message: err instanceof Error ? err.message : String(err) });
    },
    [onExpired, t],
  );

  const flashOn = useCallback((href: string, text: string, tone: 'info' | 'error' = 'info') => {
    if (!text) return;
    flashCounter.current += 1;
    setFlash({ text, tone, href, id: flashCounter.current });
  }, []);

  const showFlash = useCallback(
    (text: string, tone: 'info' | 'error' = 'info') => flashOn(window.location.pathname, text, tone),
    [flashOn],
  );

  const value: SessionContextValue = useMemo(
    () => ({ session, api, describeError, flash: showFlash }),
    [session, api, describeError, showFlash],
  );

  const go = (next: Route, message?: string) => {
    if (message) flashOn(hrefFor(next), message);
    navigate(next);
  };

  let page: ReactNode;
  if (session.user.role !== 'owner') {
    page = <StaffNotice />;
  } else {
    switch (route.page) {
      case 'new':
        page = (
          <EndpointForm
            mode="create"
            onDone={(endpoint) => {
              if (endpoint.secret) {
                setRevealed({ endpointId: endpoint.id, secret: endpoint.secret, reason: 'created' });
              }
              go({ page: 'endpoint', id: endpoint.id });
            }}
          />
        );
        break;
      case 'edit':
        page = (
          <EndpointForm
            key={route.id}
            mode="edit"
            id={route.id}
            onDone={(endpoint) => go({ page: 'endpoint', id: endpoint.id }, t('form.saved'))}
          />
        );
        break;
      case 'endpoint':
        page = (
          <EndpointDetail
            key={route.id}
            id={route.id}
            revealed={revealed?.endpointId === route.id ? revealed : null}
            onReveal={setRevealed}
            onDismissSecret={() => setRevealed(null)}
            onDeleted={(url) => go({ page: 'webhooks' }, t('webhooks.deleted', { url }))}
          />
        );
        break;
      case 'unknown':
        page = <Redirect to={{ page: 'webhooks' }} />;
        break;
      default:
        page = <WebhookList />;
    }
  }

  // Confirmations fade after a while; errors stay until the next message.
  useEffect(() => {
    if (!flash || flash.tone === 'error') return;
    const timer = setTimeout(() => setFlash((current) => (current === flash ? null : current)), 10_000);
    return () => clearTimeout(timer);
  }, [flash]);

  const currentHref = hrefFor(route);
  const visibleFlash =
    flash && (flash.href === currentHref || flash.href === window.location.pathname) ? flash : null;

  return (
    <SessionContext.Provider value={value}>
      <div className="flash-region" role="status" aria-live="polite">
        {visibleFlash && (
          <p key={visibleFlash.id} className={`flash flash-${visibleFlash.tone}`}>
            {visibleFlash.text}
          </p>
        )}
      </div>
      {session.user.role === 'owner' && <LoginAlerts />}
      {page}
    </SessionContext.Provider>
  );
}

function Redirect({ to }: { to: Route }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
