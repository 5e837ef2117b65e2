// The owner's own request headers (a key their receiving system asks for): up to 10 name/value
// rows, added and removed one at a time. A refusal of the server names the header; it is shown
// under its row, and the row's name is marked invalid.
import { useRef } from 'react';
import { useTexts } from '../../app/texts';
import { texts } from './texts';

/** The most headers an endpoint may have (the server's MAX_CUSTOM_HEADERS). */
export const MAX_HEADERS = 10;

export interface HeaderRow {
  /** Stable while the rows change, for React and for the inputs' ids. */
  key: number;
  name: string;
  value: string;
}

let nextKey = 1;
export const newHeaderRow = (name = '', value = ''): HeaderRow => ({ key: nextKey++, name, value });

/** An endpoint's headers as rows, in their order. */
export const headerRowsOf = (headers: Record<string, string> | undefined): HeaderRow[] =>
  Object.entries(headers ?? {}).map(([name, value]) => newHeaderRow(name, value));

/** The rows as the API's headers: rows left empty are ignored. */
export function headersOf(rows: HeaderRow[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const row of rows) {
    if (row.name.trim() === '' && row.value === '') continue;
    headers[row.name.trim()] = row.value;
  }
  return headers;
}

interface HeaderRowsProps {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  /** Errors by row key. */
  errors: Record<number, string>;
  /** An error about the headers as a whole (too many). */
  groupError?: string | undefined;
}

export function HeaderRows({ rows, onChange, errors, groupError }: HeaderRowsProps) {
  const { t } = useTexts(texts);
  const addButton = useRef<HTMLButtonElement>(null);

  const focusName = (key: number) =>
    requestAnimationFrame(() => document.getElementById(`header-${key}-name`)?.focus());

  function update(key: number, change: Partial<HeaderRow>) {
    onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  }

  function add() {
    if (rows.length >= MAX_HEADERS) return;
    const row = newHeaderRow();
    onChange([...rows, row]);
    focusName(row.key);
  }

  function remove(index: number) {
    const next = rows.filter((_, i) => i !== index);
    onChange(next);
    // The focus goes to the row that takes its place, else the one before, else "Add a header".
    const neighbour = next[index] ?? next[index - 1];
    if (neighbour) focusName(neighbour.key);
    else requestAnimationFrame(() => addButton.current?.focus());
  }

  const full = rows.length >= MAX_HEADERS;

  return (
    <fieldset
      className={`field header-rows${groupError ? ' invalid' : ''}`}
      aria-describedby={`headers-hint${groupError ? ' headers-error' : ''}`}
    >
      <legend>{t('controls.headers_legend')}</legend>
      <p id="headers-hint" className="hint">
        {t('controls.headers_hint')}
      </p>
      {rows.length > 0 && (
        <ol className="header-list">
          {rows.map((row, index) => {
            const error = errors[row.key];
            const id = `header-${row.key}`;
            return (
              <li key={row.key} className={`header-row${error ? ' invalid' : ''}`}>
                <fieldset aria-describedby={error ? `${id}-error` : undefined}>
                  <legend className="header-row-title">{t('controls.header_row', { n: index + 1 })}</legend>
                  <div className="header-inputs">
                    <div className="header-input">
                      <label htmlFor={`${id}-name`}>{t('controls.header_name')}</label>
                      <input
                        id={`${id}-name`}
                        name="header-name"
                        autoComplete="off"
                        autoCapitalize="none"
                        spellCheck={false}
                        maxLength={100}
                        placeholder="X-Farm-Key"
                        aria-invalid={error ? true : undefined}
                        aria-describedby={error ? `${id}-error` : undefined}
                        value={row.name}
                        onChange={(event) => update(row.key, { name: event.target.value })}
                      />
                    </div>
                    <div className="header-input">
                      <label htmlFor={`${id}-value`}>{t('controls.header_value')}</label>
                      <input
                        id={`${id}-value`}
                        name="header-value"
                        autoComplete="off"
                        autoCapitalize="none"
                        spellCheck={false}
                        maxLength={1024}
                        value={row.value}
                        onChange={(event) => update(row.key, { value: event.target.value })}
                      />
                    </div>
                    <button
                      type="button"
                      className="button secondary header-remove"
                      aria-label={t('controls.header_remove_label', { n: index + 1 })}
                      onClick={() => remove(index)}
                    >
                      {t('controls.header_remove')}
                    </button>
                  </div>
                  {error && (
                    <p id={`${id}-error`} className="field-error">
                      {error}
                    </p>
                  )}
                </fieldset>
              </li>
            );
          })}
        </ol>
      )}
      {groupError && (
        <p id="headers-error" className="field-error">
          {groupError}
        </p>
      )}
      {full ? (
        <p className="hint">{t('controls.headers_full')}</p>
      ) : (
        <button type="button" ref={addButton} className="button secondary" onClick={add}>
          {t('controls.header_add')}
        </button>
      )}
    </fieldset>
  );
}
