// The People section (owners only; the shell tells staff so without asking the API): the list,
// adding a person, a person's page (role, new password, removal), and the keys for programs.
// A key the API answered once is kept here, in memory only, until the owner says it is saved.
import { Outlet } from '@tanstack/react-router';
import { createContext, useContext, useMemo, useState } from 'react';
import './people.css';

export interface RevealedKey {
  id: number;
  name: string;
  key: string;
}

interface RevealedState {
  revealed: RevealedKey | null;
  reveal: (key: RevealedKey | null) => void;
}

const RevealedContext = createContext<RevealedState>({ revealed: null, reveal: () => {} });

export function useRevealedKey(): RevealedState {
  return useContext(RevealedContext);
}

export default function PeopleSection() {
  const [revealed, reveal] = useState<RevealedKey | null>(null);
  const value = useMemo(() => ({ revealed, reveal }), [revealed]);
  return (
    <RevealedContext.Provider value={value}>
      <Outlet />
    </RevealedContext.Provider>
  );
}
