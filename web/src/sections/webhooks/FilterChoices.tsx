// Per-kind data filters an owner can set in plain words: for the alert kinds, which severities are
// sent. A filter the form cannot show (set through the API: another field, another kind, other
// values) is kept unchanged on save and mentioned, never dropped.
import { type MessageKey, useI18n } from '../../app/i18n';
import { useTexts } from '../../app/texts';
import type { Endpoint } from './api';
import { texts } from './texts';

export type Filters = NonNullable<Endpoint['filters']>;

/** The kinds whose data carries a severity (src/modules/iot: info, warning, critical). */
export const ALERT_KINDS = ['iot.alert.raised', 'iot.alert.resolved'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The severities chosen for each alert kind; all of them means no filter. */
export type SeverityChoice = Record<AlertKind, Severity[]>;

const isSeverity = (value: unknown): value is Severity => (SEVERITIES as readonly unknown[]).includes(value);

/** An endpoint's filters split into what the form shows (severities) and what it keeps as it is. */
export function splitFilters(filters: Filters | null | undefined): {
  choice: SeverityChoice;
  other: Filters;
} {
  const choice: SeverityChoice = {
    'iot.alert.raised': [...SEVERITIES],
    'iot.alert.resolved': [...SEVERITIES],
  };
  const other: Filters = {};
  for (const [kind, fields] of Object.entries(filters ?? {})) {
    const names = Object.keys(fields);
    const values = fields.severity;
    const shown =
      (ALERT_KINDS as readonly string[]).includes(kind) &&
      names.length === 1 &&
      values !== undefined &&
      values.length > 0 &&
      values.every(isSeverity);
    if (shown) choice[kind as AlertKind] = SEVERITIES.filter((s) => values.includes(s));
    else other[kind] = fields;
  }
  return { choice, other };
}

/** The filters to save: those kept as they were, and a severity filter where not all are chosen. */
export function joinFilters(choice: SeverityChoice, other: Filters): Filters | null {
  const filters: Filters = { ...other };
  for (const kind of ALERT_KINDS) {
    if (kind in other) continue;
    const chosen = choice[kind];
    if (chosen.length > 0 && chosen.length < SEVERITIES.length) filters[kind] = { severity: [...chosen] };
  }
  return Object.keys(filters).length === 0 ? null : filters;
}

interface FilterChoicesProps {
  /** The alert kinds the endpoint receives (their severity choice is shown). */
  kinds: AlertKind[];
  choice: SeverityChoice;
  onChange: (choice: SeverityChoice) => void;
  /** Filters set through the API, kept as they are. */
  other: Filters;
  errors: Partial<Record<AlertKind, string>>;
}

export function FilterChoices({ kinds, choice, onChange, other, errors }: FilterChoicesProps) {
  const { t } = useTexts(texts);
  const app = useI18n();
  const otherKinds = Object.keys(other);
  const shown = kinds.filter((kind) => !(kind in other));
  if (shown.length === 0 && otherKinds.length === 0) return null;

  function toggle(kind: AlertKind, severity: Severity, checked: boolean) {
    const current = new Set(choice[kind]);
    if (checked) current.add(severity);
    else current.delete(severity);
    onChange({ ...choice, [kind]: SEVERITIES.filter((s) => current.has(s)) });
  }

  return (
    <div className="filter-choices">
      {shown.length > 0 && <h2 className="form-section-title">{t('controls.filters_legend')}</h2>}
      {shown.map((kind) => {
        const error = errors[kind];
        const id = `filter-${kind.replaceAll('.', '-')}`;
        return (
          <fieldset
            key={kind}
            id={id}
            className={`field severity-choice${error ? ' invalid' : ''}`}
            aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
          >
            <legend>{t('controls.severity_legend', { event: app.t(`event.${kind}` as MessageKey) })}</legend>
            <div className="severity-options">
              {SEVERITIES.map((severity) => (
                <label className="check" key={severity}>
                  <input
                    type="checkbox"
                    name={`${kind}-severity`}
                    value={severity}
                    checked={choice[kind].includes(severity)}
                    onChange={(event) => toggle(kind, severity, event.target.checked)}
                  />
                  <span>{t(`controls.severity.${severity}`)}</span>
                </label>
              ))}
            </div>
            <p id={`${id}-hint`} className="hint">
              {t('controls.severity_hint')}
            </p>
            {error && (
              <p id={`${id}-error`} className="field-error">
                {error}
              </p>
            )}
          </fieldset>
        );
      })}
      {otherKinds.length > 0 && (
        <div className="notice other-filters">
          <p>{t('controls.filters_other')}</p>
          <ul>
            {otherKinds.map((kind) => (
              <li key={kind}>
                <code>{kind}</code>: <code>{JSON.stringify(other[kind])}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
