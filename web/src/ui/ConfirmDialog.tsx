// A modal confirmation on the native <dialog>: focus stays inside, Escape cancels, and the
// focus returns to the button that opened it. While the action runs its buttons say so
// (aria-disabled) without being disabled, so the focus never falls out of the dialog.
import { type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';
import { focusPageHeading } from '../app/focus';
import { useI18n } from '../app/i18n';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  tone?: 'danger' | 'primary';
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** Takes the focus on close when the button that opened the dialog is gone (else the page heading). */
  fallbackFocus?: RefObject<HTMLElement | null>;
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  tone = 'primary',
  busy = false,
  onConfirm,
  onCancel,
  fallbackFocus,
}: ConfirmDialogProps) {
  const { t } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    // The safe choice has the focus: Enter never confirms a destructive action by accident.
    cancelRef.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
      // The action may have removed the opener (a paused notice's Re-enable): never drop the focus.
      if (opener?.isConnected) opener.focus();
      else if (fallbackFocus?.current) fallbackFocus.current.focus();
      else focusPageHeading();
    };
  }, [fallbackFocus]);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div id={bodyId} className="dialog-body">
        {children}
      </div>
      <div className="dialog-actions">
        <button
          type="button"
          className="button secondary"
          ref={cancelRef}
          onClick={() => !busy && onCancel()}
          aria-disabled={busy || undefined}
        >
          {t('dialog.cancel')}
        </button>
        <button
          type="button"
          className={`button ${tone}`}
          onClick={() => !busy && onConfirm()}
          aria-disabled={busy || undefined}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
