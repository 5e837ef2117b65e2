// The fields a device form and the adopt form share: the zone it is in, and how long it may stay
// silent (in minutes; the API takes seconds).
import type { RefObject } from 'react';
import { useTexts } from '../../app/texts';
import { Field } from '../../ui/Field';
import { useZones } from './api';
import { texts } from './texts';

export function ZoneField({
  id,
  value,
  onChange,
  error,
  inputRef,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  inputRef: RefObject<HTMLSelectElement | null>;
}) {
  const { t } = useTexts(texts);
  const zones = useZones();
  return (
    <Field id={id} label={t('devform.zone')} error={error}>
      {(control) => (
        <select
          {...control}
          ref={inputRef}
          name="zone_id"
          value={value}
          onChange={(event) => onChange(event.target.value)}
        >
          <option value="">{t('device.no_zone')}</option>
          {(zones.data ?? []).map((zone) => (
            <option key={zone.id} value={String(zone.id)}>
              {zone.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function SilenceMinutesField({
  id,
  hint,
  value,
  onChange,
  error,
  inputRef,
}: {
  id: string;
  hint: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  inputRef: RefObject<HTMLInputElement | null>;
}) {
  const { t } = useTexts(texts);
  return (
    <Field id={id} label={t('devform.timeout')} hint={hint} error={error}>
      {(control) => (
        <input
          {...control}
          ref={inputRef}
          name="timeout_minutes"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}
