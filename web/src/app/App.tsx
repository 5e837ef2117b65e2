// The farm app: language, data cache, session, announcements, and the router.
import { MutationCache, QueryCache, QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, one, SessionExpiredError, unwrap } from '../api/client';
import { AnnouncerProvider } from './announce';
import { requestPageFocus } from './focus';
import {
  type I18n,
  I18nContext,
  initialLanguage,
  type Language,
  makeTranslator,
  pickedLanguage,
} from './i18n';
import { router } from './router';
import { SessionProvider, useSessionState } from './session';

export function App() {
  const [language, showLanguage] = useState<Language>(initialLanguage);
  // A language the person picks is kept for this browser; the account's is only shown.
  const i18n: I18n = useMemo(() => {
    const setLanguage = (picked: Language) => {
      localStorage.setItem('furrow.language', picked);
      showLanguage(picked);
    };
    return { language, setLanguage, ...makeTranslator(language) };
  }, [language]);
  useEffect(() => {
    document.documentElement.lang = language;
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
          <AccountLanguage show={showLanguage} />
          <AnnouncerProvider>
            <RouterProvider router={router} />
          </AnnouncerProvider>
        </SessionProvider>
      </QueryClientProvider>
    </I18nContext.Provider>
  );
}

/**
 * After sign-in, the language stored in the person's account is used, unless they picked one in
 * this browser. Same query as the Account page's (['account', 'me']).
 */
function AccountLanguage({ show }: { show: (language: Language) => void }) {
  const { session, api } = useSessionState();
  const account = useQuery({
    queryKey: ['account', 'me'],
    queryFn: async () => one<{ language: Language | null }>(await unwrap(api.GET('/api/account'))),
    enabled: session !== null && pickedLanguage() === null,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const applied = useRef<string | null>(null);
  const stored = account.data?.language;
  useEffect(() => {
    if (!session || !stored || applied.current === session.token) return;
    applied.current = session.token;
    if (pickedLanguage() === null) show(stored);
  }, [session, stored, show]);
  return null;
}

function ExpireOnUnauthorized({ expire }: { expire: { current: () => void } }) {
  const { expire: end } = useSessionState();
  expire.current = end;
  return null;
}
