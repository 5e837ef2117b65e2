// Focus after a move: when the person goes to another page (a link, back/forward, sign-in or
// sign-out), the new page's heading takes the focus, so keyboard and screen-reader users start at
// the top of the new page instead of on a link that no longer exists.

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

/** Puts the focus on the current page's heading, e.g. when the control that had it went away. */
export function focusPageHeading(): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}
