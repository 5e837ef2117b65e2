// The Webhooks section (owners only): the list, an endpoint's page, and the add and edit forms.
// A signing secret the API answered once (create, rotate) is kept here, in memory only, until the
// owner says it is saved.
import { Outlet } from '@tanstack/react-router';
import { createContext, useContext, useMemo, useState } from 'react';
import './webhooks.css';

export interface RevealedSecret {
  endpointId: string;
  secret: string;
  reason: 'created' | 'rotated';
}

interface RevealedState {
  revealed: RevealedSecret | null;
  reveal: (secret: RevealedSecret | null) => void;
}

const RevealedContext = createContext<RevealedState>({ revealed: null, reveal: () => {} });

export function useRevealedSecret(): RevealedState {
  return useContext(RevealedContext);
}

export default function WebhooksSection() {
  const [revealed, reveal] = useState<RevealedSecret | null>(null);
  const value = useMemo(() => ({ revealed, reveal }), [revealed]);
  return (
    <RevealedContext.Provider value={value}>
      <Outlet />
    </RevealedContext.Provider>
  );
}
