// The page's h1. It takes the focus when a page opens, so keyboard and screen-reader users
// start at the top of the new page instead of on a link that no longer exists.
import { type ReactNode, useEffect, useRef } from 'react';
import { takePageFocus } from '../router';

export function PageHeading({ children, className }: { children: ReactNode; className?: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // Only after a move within the screen: on a fresh load the browser starts at the top anyway.
    if (takePageFocus()) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1} className={className}>
      {children}
    </h1>
  );
}
