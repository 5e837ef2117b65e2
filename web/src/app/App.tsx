// The farm app: language, data cache, session, announcements, and the router.
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, SessionExpiredError } from '../api/client';
import { AnnouncerProvider } from './announce';
import { requestPageFocus } from './focus';
import { type I18n, I18nContext, initialLanguage, type Language, makeTranslator } from './i18n';
import { router } from './router';
import { SessionProvider, useSessionState } from './session';

export function App() {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  const i18n: I18n = useMemo(() => ({ language, setLanguage, ...makeTranslator(language) }), [language]);
  useEffect(() => {
    document.documentElement.lang = language;
    localStorage.setItem('furrow.language', language);
  }, [language]);

  // Any call answered 401 ends the session (the sign-in page says why).
  const expire = useRef<() => void>(() => {});
  const [queryClient] = useState(() => {
    const onError = (error: unknown) => {
      if (error instanceof SessionExpiredError) expire.current();
    };
    return new QueryClient({
      queryCache: new QueryCache({ onError }),
      mutationCache: new MutationCache({ onError }),
      defaultOptions: {
        queries: {
          staleTime: 5_000,
          // A refusal (4xx) will not change by asking again; a lost connection may.
          retry: (count, error) => !(error instanceof ApiError) && count < 2,
        },
      },
    });
  });

  return (
    <I18nContext.Provider value={i18n}>
      <QueryClientProvider client={queryClient}>
        <SessionProvider
          onEnd={() => {
            queryClient.clear();
            requestPageFocus();
          }}
        >
          <ExpireOnUnauthorized expire={expire} />
          <AnnouncerProvider>
            <RouterProvider router={router} />
          </AnnouncerProvider>
        </SessionProvider>
      </QueryClientProvider>
    </I18nContext.Provider>
  );
}

function ExpireOnUnauthorized({ expire }: { expire: { current: () => void } }) {
  const { expire: end } = useSessionState();
  expire.current = end;
  return null;
}
