// A signing secret, shown once (after create and after rotate), with a copy button.
import { useEffect, useId, useRef, useState } from 'react';
import { useI18n } from '../../app/i18n';

interface SecretNoticeProps {
  secret: string;
  reason: 'created' | 'rotated';
  onDismiss: () => void;
}

export function SecretNotice({ secret, reason, onDismiss }: SecretNoticeProps) {
  const { t } = useI18n();
  const inputId = useId();
  const warningId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const headingRef = useRef<HTMLHeadingElement>(null);

  // Shown after an action (add, rotate): it takes the focus, so the secret is read out first.
  useEffect(() => {
    const frame = requestAnimationFrame(() => headingRef.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopyState('copied');
    } catch {
      // No clipboard access (permissions, insecure origin): select it so a keyboard copy works.
      inputRef.current?.select();
      setCopyState('failed');
    }
  }

  return (
    <section className="secret-notice">
      <h2 ref={headingRef} tabIndex={-1}>
        {t('secret.title')}
      </h2>
      <p className="secret-context">{t(reason === 'created' ? 'secret.created' : 'secret.rotated')}</p>
      <p id={warningId} className="secret-warning">
        <strong>{t('secret.once')}</strong>
      </p>
      <div className="secret-row">
        <label htmlFor={inputId} className="visually-hidden">
          {t('secret.title')}
        </label>
        <input
          id={inputId}
          ref={inputRef}
          className="secret-value"
          readOnly
          value={secret}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={warningId}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" className="button primary" onClick={copy}>
          {t('secret.copy')}
        </button>
      </div>
      <p className="copy-state" role="status">
        {copyState === 'copied' ? t('secret.copied') : copyState === 'failed' ? t('secret.copy_failed') : ''}
      </p>
      <p className="hint">{t('secret.use')}</p>
      <button type="button" className="button secondary" onClick={onDismiss}>
        {t('secret.done')}
      </button>
    </section>
  );
}
