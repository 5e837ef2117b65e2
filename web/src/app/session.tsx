// Who is signed in, kept in sessionStorage for this tab, with the one API client every page uses.
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { type Api, createApi, SessionExpiredError, unwrap } from '../api/client';
import type { MessageKey } from './i18n';
import { useI18n } from './i18n';

export type Role = 'owner' | 'staff';

export interface Session {
  token: string;
  expiresAt: string;
  user: { id: number; username: string; name: string; role: Role };
  tenant: { code: string; name: string };
}

export interface SessionState {
  session: Session | null;
  api: Api;
  /** Why the sign-in page is shown: an expired session, a sign-out. */
  notice: MessageKey | null;
  /** The account of a session that expired, so signing in again is quick. */
  lastAccount: { tenantcode: string; username: string } | null;
  signIn(session: Session): void;
  signOut(): Promise<void>;
  /** The token no longer works: back to sign-in with a reason. */
  expire(): void;
}

const SESSION_KEY = 'furrow.session';
/** Why the last session of this tab ended, so a reload of the sign-in page still says so. */
const ENDED_KEY = 'furrow.ended';

type Ending = { notice: MessageKey; lastAccount: SessionState['lastAccount'] };

function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(SESSION_KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as Session;
    return typeof session.token === 'string' ? session : null;
  } catch {
    return null;
  }
}

function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(SESSION_KEY);
}

function loadEnding(): Ending | null {
  try {
    const raw = sessionStorage.getItem(ENDED_KEY);
    if (!raw) return null;
    const ending = JSON.parse(raw) as Ending;
    return ending.notice === 'signin.expired' || ending.notice === 'signin.signed_out' ? ending : null;
  } catch {
    return null;
  }
}

function saveEnding(ending: Ending | null): void {
  if (ending) sessionStorage.setItem(ENDED_KEY, JSON.stringify(ending));
  else sessionStorage.removeItem(ENDED_KEY);
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children, onEnd }: { children: ReactNode; onEnd: () => void }) {
  const { language } = useI18n();
  const [session, setSession] = useState<Session | null>(loadSession);
  // A page polling in the background may find the token expired just before a reload: the
  // reloaded sign-in page still says why, with the same account.
  const [ending] = useState(() => (loadSession() ? null : loadEnding()));
  const [notice, setNotice] = useState<MessageKey | null>(ending?.notice ?? null);
  const [lastAccount, setLastAccount] = useState<SessionState['lastAccount']>(ending?.lastAccount ?? null);
  const current = useRef({ session, language });
  current.current = { session, language };

  const api = useMemo(
    () =>
      createApi({
        token: () => current.current.session?.token ?? null,
        language: () => current.current.language,
      }),
    [],
  );

  const end = useCallback(
    (why: 'signin.expired' | 'signin.signed_out') => {
      const was = current.current.session;
      // Several calls may be refused at once when a token expires: the first one ends the session.
      if (!was && why === 'signin.expired') return;
      // After a sign-out the form starts empty: the next person at this device may be someone else.
      const account =
        was && why === 'signin.expired' ? { tenantcode: was.tenant.code, username: was.user.username } : null;
      setLastAccount(account);
      current.current.session = null;
      saveSession(null);
      saveEnding({ notice: why, lastAccount: account });
      setSession(null);
      setNotice(why);
      onEnd();
    },
    [onEnd],
  );

  const checked = useRef<string | null>(null);
  const signIn = useCallback((next: Session) => {
    checked.current = next.token; // fresh from the login answer
    current.current.session = next;
    saveSession(next);
    saveEnding(null);
    setNotice(null);
    setSession(next);
  }, []);

  const signOut = useCallback(async () => {
    // Revoke the token on the server; the app signs out whatever the answer.
    await unwrap(api.POST('/api/auth/logout')).catch(() => {});
    end('signin.signed_out');
  }, [api, end]);

  const expire = useCallback(() => end('signin.expired'), [end]);

  // A session kept from earlier in this tab is checked once: the token may have expired or been
  // revoked, and the user's role may have changed.
  useEffect(() => {
    if (!session || checked.current === session.token) return;
    checked.current = session.token;
    unwrap(api.GET('/api/auth/me'))
      .then(({ data }) => {
        const next: Session = {
          ...session,
          user: {
            id: data.user.id,
            username: data.user.username,
            name: data.user.name,
            role: data.user.role,
          },
          tenant: { code: data.tenant.code, name: data.tenant.name },
        };
        saveSession(next);
        setSession((now) => (now?.token === next.token ? next : now));
      })
      .catch((err) => {
        if (err instanceof SessionExpiredError) expire();
      });
  }, [session, api, expire]);

  const value = useMemo(
    () => ({ session, api, notice, lastAccount, signIn, signOut, expire }),
    [session, api, notice, lastAccount, signIn, signOut, expire],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSessionState outside SessionProvider');
  return value;
}

/** The signed-in session (pages are only shown signed in). */
export function useSession(): { session: Session; api: Api } {
  const { session, api } = useSessionState();
  if (!session) throw new Error('useSession while signed out');
  return { session, api };
}
