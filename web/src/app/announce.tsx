// The live region: results of actions ("Test message sent", "Changes saved", a failure) are shown
// in a small note that floats over the page (it never pushes the page down) and announced by
// screen readers. Confirmations fade after 10 seconds; errors stay until the next message.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { useI18n } from './i18n';

export type Tone = 'info' | 'error';
type Announce = (text: string, tone?: Tone) => void;

const AnnounceContext = createContext<Announce>(() => {});

interface Message {
  text: string;
  tone: Tone;
  id: number;
}

export function AnnouncerProvider({ children }: { children: ReactNode }) {
  const [message, setMessage] = useState<Message | null>(null);
  const counter = useRef(0);
  // A message is in the language it was said in: a switch of language clears it.
  const { language, t } = useI18n();
  const [shownIn, setShownIn] = useState(language);
  if (shownIn !== language) {
    setShownIn(language);
    setMessage(null);
  }
  const announce = useCallback<Announce>((text, tone = 'info') => {
    if (!text) return;
    counter.current += 1;
    setMessage({ text, tone, id: counter.current });
  }, []);

  useEffect(() => {
    if (!message || message.tone === 'error') return;
    const timer = setTimeout(() => setMessage((now) => (now === message ? null : now)), 10_000);
    return () => clearTimeout(timer);
  }, [message]);

  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div className="toast-region">
        <div role="status" aria-live="polite" aria-atomic="true">
          {message?.tone === 'info' && (
            <p key={message.id} className="toast toast-info">
              {message.text}
            </p>
          )}
        </div>
        <div role="alert" aria-atomic="true">
          {message?.tone === 'error' && (
            <p key={message.id} className="toast toast-error">
              {message.text}
              <button
                type="button"
                className="toast-close"
                onClick={() => setMessage(null)}
                aria-label={t('toast.close')}
              >
                ×
              </button>
            </p>
          )}
        </div>
      </div>
    </AnnounceContext.Provider>
  );
}

/** announce(text, tone): show and read out the result of an action. */
export function useAnnounce(): Announce {
  return useContext(AnnounceContext);
}
