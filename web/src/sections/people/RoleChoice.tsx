// Owner or staff, each with what it may do.
import { useTexts } from '../../app/texts';
import type { Role } from './api';
import { texts } from './texts';

const ROLES: readonly Role[] = ['staff', 'owner'];

export function RoleChoice({
  name,
  legend,
  value,
  onChange,
  error,
  legendHidden = false,
  hints,
}: {
  name: string;
  legend: string;
  value: Role;
  onChange: (role: Role) => void;
  error?: string | undefined;
  /** When a heading above already says what the choice is. */
  legendHidden?: boolean;
  /** What each role may do, when it is not a person's (a key for a program). */
  hints?: Record<Role, string>;
}) {
  const { t } = useTexts(texts);
  const errorId = `${name}-error`;
  return (
    <fieldset
      className={`field role-choice${error ? ' invalid' : ''}`}
      aria-describedby={error ? errorId : undefined}
    >
      <legend className={legendHidden ? 'visually-hidden' : undefined}>{legend}</legend>
      {ROLES.map((role) => (
        <label className="check" key={role}>
          <input
            type="radio"
            name={name}
            value={role}
            checked={value === role}
            onChange={() => onChange(role)}
          />
          <span>
            <span className="check-title">
              {t(role === 'owner' ? 'role.owner_label' : 'role.staff_label')}
            </span>
            <span className="hint">
              {hints?.[role] ?? t(role === 'owner' ? 'role.owner_hint' : 'role.staff_hint')}
            </span>
          </span>
        </label>
      ))}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
