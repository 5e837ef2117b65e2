// A secret the API answers only once (a webhook's signing secret, a key for a program): it takes
// the focus so it is read out first, says plainly that it will not be shown again, and offers a
// Copy button (or, without clipboard access, selects it for a keyboard copy).
import { useEffect, useId, useRef, useState } from 'react';

export interface ShownOnceWords {
  /** The heading, also the label of the value. */
  title: string;
  /** What just happened ("Key added."). */
  context: string;
  /** "You will not see it again…" */
  warning: string;
  copy: string;
  copied: string;
  copyFailed: string;
  /** How to use it. */
  use: string;
  /** The button that hides it. */
  done: string;
}

export function ShownOnce({
  value,
  words,
  onDismiss,
  wrap = false,
}: {
  value: string;
  words: ShownOnceWords;
  onDismiss: () => void;
  /** Wraps a long value over lines instead of scrolling it, so a phone shows all of it. */
  wrap?: boolean;
}) {
  const inputId = useId();
  const warningId = useId();
  const inputRef = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'failed'>('idle');

  // Shown after an action (add, rotate): it takes the focus, so the secret is read out first.
  useEffect(() => {
    const frame = requestAnimationFrame(() => headingRef.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
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
        {words.title}
      </h2>
      <p className="secret-context">{words.context}</p>
      <p id={warningId} className="secret-warning">
        <strong>{words.warning}</strong>
      </p>
      <div className="secret-row">
        <label htmlFor={inputId} className="visually-hidden">
          {words.title}
        </label>
        {wrap ? (
          <textarea
            id={inputId}
            ref={inputRef}
            className="secret-value"
            readOnly
            rows={2}
            value={value}
            spellCheck={false}
            autoComplete="off"
            aria-describedby={warningId}
            onFocus={(event) => event.target.select()}
          />
        ) : (
          <input
            id={inputId}
            ref={inputRef}
            className="secret-value"
            readOnly
            value={value}
            spellCheck={false}
            autoComplete="off"
            aria-describedby={warningId}
            onFocus={(event) => event.target.select()}
          />
        )}
        <button type="button" className="button primary" onClick={copy}>
          {words.copy}
        </button>
      </div>
      <p className="copy-state" role="status">
        {copyState === 'copied' ? words.copied : copyState === 'failed' ? words.copyFailed : ''}
      </p>
      <p className="hint">{words.use}</p>
      <button type="button" className="button secondary" onClick={onDismiss}>
        {words.done}
      </button>
    </section>
  );
}
