// The states every page shows while it waits, when there is nothing, and when a load failed.
import type { ReactNode } from 'react';
import { ApiError, NetworkError, SessionExpiredError } from '../api/client';
import { type Translate, useI18n } from '../app/i18n';

export function Loading({ label }: { label?: string }) {
  const { t } = useI18n();
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label ?? t('state.loading')}
    </p>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

/** A failed load, said in plain words, with a "Try again" button. */
export function ErrorState({
  error,
  onRetry,
  notFound,
}: {
  error: unknown;
  onRetry?: () => void;
  notFound?: string;
}) {
  const { t } = useI18n();
  // An expired session is handled by the app (back to sign-in); nothing to show here.
  if (error instanceof SessionExpiredError) return null;
  const message =
    notFound && error instanceof ApiError && error.status === 404 ? notFound : describeError(error, t);
  return (
    <div className="notice notice-error error-state" role="alert">
      <p>{message}</p>
      {onRetry && (
        <button type="button" className="button secondary" onClick={onRetry}>
          {t('state.try_again')}
        </button>
      )}
    </div>
  );
}

/** A failure in words for the person using the app. */
export function describeError(error: unknown, t: Translate): string {
  if (error instanceof NetworkError) return t('error.network');
  if (error instanceof ApiError) return error.message;
  return t('error.generic', { message: error instanceof Error ? error.message : String(error) });
}
