// A small router for the screen's few pages, on the History API under /manage/.
import { type MouseEvent, useEffect, useState } from 'react';

export const BASE = '/manage';

export type Route =
  | { page: 'webhooks' }
  | { page: 'new' }
  | { page: 'endpoint'; id: string }
  | { page: 'edit'; id: string }
  | { page: 'unknown' };

export function parseRoute(pathname: string): Route {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'webhooks')) return { page: 'webhooks' };
  if (parts[0] !== 'webhooks') return { page: 'unknown' };
  if (parts.length === 2 && parts[1] === 'new') return { page: 'new' };
  if (parts.length === 2 && parts[1]) return { page: 'endpoint', id: parts[1] };
  if (parts.length === 3 && parts[1] && parts[2] === 'edit') return { page: 'edit', id: parts[1] };
  return { page: 'unknown' };
}

export function hrefFor(route: Route): string {
  switch (route.page) {
    case 'new':
      return `${BASE}/webhooks/new`;
    case 'endpoint':
      return `${BASE}/webhooks/${encodeURIComponent(route.id)}`;
    case 'edit':
      return `${BASE}/webhooks/${encodeURIComponent(route.id)}/edit`;
    default:
      return `${BASE}/webhooks`;
  }
}

const listeners = new Set<() => void>();

/** Set when the user moves to another page; the next page heading then takes the focus. */
let focusPending = false;

export function requestPageFocus(): void {
  focusPending = true;
}

/** Answers whether a page heading should take the focus now (once per move). */
export function takePageFocus(): boolean {
  const pending = focusPending;
  focusPending = false;
  return pending;
}

export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  const href = hrefFor(route);
  focusPending = true;
  if (href !== window.location.pathname) {
    if (options.replace) window.history.replaceState(null, '', href);
    else window.history.pushState(null, '', href);
  }
  for (const listener of listeners) listener();
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname));
    const back = () => {
      focusPending = true;
      update();
    };
    listeners.add(update);
    window.addEventListener('popstate', back);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', back);
    };
  }, []);
  return route;
}

/** onClick for in-app links: ordinary clicks stay in the page, modified clicks open a new tab. */
export function followLink(route: Route) {
  return (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(route);
  };
}
