// The page's h1 and the tab's title. After a move within the app the heading takes the focus
// (see app/focus.ts); on a fresh load the browser starts at the top anyway.
import { type ReactNode, useEffect, useRef } from 'react';
import { takePageFocus } from '../app/focus';
import { useI18n } from '../app/i18n';

interface PageHeadingProps {
  children: ReactNode;
  /** The tab's title when the heading is not plain text. */
  title?: string;
  className?: string;
}

export function PageHeading({ children, title, className }: PageHeadingProps) {
  const { t } = useI18n();
  const ref = useRef<HTMLHeadingElement>(null);
  const text = title ?? (typeof children === 'string' ? children : '');
  useEffect(() => {
    if (takePageFocus()) ref.current?.focus();
  }, []);
  useEffect(() => {
    document.title = text ? `${text} · ${t('app.name')}` : t('app.name');
  }, [text, t]);
  return (
    <h1 ref={ref} tabIndex={-1} className={className}>
      {children}
    </h1>
  );
}
