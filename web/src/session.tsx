// The signed-in session as seen by every page: its API and one way to describe errors.
import { createContext, useContext } from 'react';
import type { Api, Session } from './api';

export interface SessionContextValue {
  session: Session;
  api: Api;
  /**
   * A message to show for a failed call. An expired session signs the user out (and the
   * message is empty: the sign-in page says why).
   */
  describeError: (err: unknown) => string;
  /** A short confirmation or error shown at the top of the page and announced. */
  flash: (text: string, tone?: 'info' | 'error') => void;
}

export const SessionContext = createContext<SessionContextValue | null>(null);

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in page');
  return value;
}
