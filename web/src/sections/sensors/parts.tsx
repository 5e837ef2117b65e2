// Small parts the Sensors pages share: measurement names and units, values in words, the device
// status and alert severity labels, a rule's condition as a sentence, a value to copy, and the
// notice staff get on an owner's page.
import { Link } from '@tanstack/react-router';
import { type ReactNode, useId, useRef, useState } from 'react';
import type { Language } from '../../app/i18n';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { formatNumber } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import type { Device, Rule, Severity } from './api';
import { texts } from './texts';

interface MetricInfo {
  en: string;
  vi: string;
  unit?: string;
}

/** The measurements devices commonly send; any other is shown by the name it is sent with. */
const METRICS: Record<string, MetricInfo> = {
  temperature: { en: 'Temperature', vi: 'Nhiệt độ', unit: '°C' },
  air_temperature: { en: 'Air temperature', vi: 'Nhiệt độ không khí', unit: '°C' },
  soil_temperature: { en: 'Soil temperature', vi: 'Nhiệt độ đất', unit: '°C' },
  humidity: { en: 'Humidity', vi: 'Độ ẩm', unit: '%' },
  air_humidity: { en: 'Air humidity', vi: 'Độ ẩm không khí', unit: '%' },
  soil_moisture: { en: 'Soil moisture', vi: 'Độ ẩm đất', unit: '%' },
  battery_level: { en: 'Battery', vi: 'Pin', unit: '%' },
  battery: { en: 'Battery', vi: 'Pin', unit: '%' },
  ph: { en: 'pH', vi: 'Độ pH' },
  soil_ph: { en: 'Soil pH', vi: 'Độ pH của đất' },
  ec: { en: 'Salinity (EC)', vi: 'Độ mặn (EC)', unit: 'mS/cm' },
  light: { en: 'Light', vi: 'Ánh sáng', unit: 'lx' },
  rainfall: { en: 'Rainfall', vi: 'Lượng mưa', unit: 'mm' },
  wind_speed: { en: 'Wind speed', vi: 'Tốc độ gió', unit: 'm/s' },
  co2: { en: 'CO₂', vi: 'CO₂', unit: 'ppm' },
  water_level: { en: 'Water level', vi: 'Mực nước', unit: 'cm' },
};

export function metricName(metric: string, language: Language): string {
  return METRICS[metric]?.[language] ?? metric;
}

export function metricUnit(metric: string): string | undefined {
  return METRICS[metric]?.unit;
}

/** "24.5 °C", "61 %", "7.2" in the chosen language. */
export function formatValue(value: number, metric: string, language: Language): string {
  const number = formatNumber(value, language, { maximumFractionDigits: Math.abs(value) < 10 ? 2 : 1 });
  const unit = metricUnit(metric);
  return unit ? `${number} ${unit}` : number;
}

/** Online or offline in words, with a shape that differs too (never colour alone). */
export function DeviceStatus({ status }: { status: Device['status'] }) {
  const { t } = useTexts(texts);
  return (
    <span className={`badge status-${status}`}>
      <span aria-hidden="true" className="status-mark">
        {status === 'online' ? '●' : '○'}
      </span>{' '}
      {t(status === 'online' ? 'device.online' : 'device.offline')}
    </span>
  );
}

export function SeverityBadge({ severity }: { severity: string }) {
  const { t } = useTexts(texts);
  const known = severity === 'info' || severity === 'warning' || severity === 'critical';
  return (
    <span className={`badge severity-${known ? severity : 'info'}`}>
      {known ? t(`severity.${severity as Severity}`) : severity}
    </span>
  );
}

/** "Temperature above 35 °C". */
export function useCondition(): (rule: Pick<Rule, 'metric' | 'operator' | 'threshold'>) => string {
  const { t, language } = useTexts(texts);
  return (rule) =>
    t('rule.condition', {
      metric: metricName(rule.metric, language),
      operator: t(`op.${rule.operator}`),
      threshold: formatValue(rule.threshold, rule.metric, language),
    });
}

/** Owners only: the page's own content, or for staff a plain notice (nothing is asked of the API). */
export function OwnersOnly({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTexts(texts);
  const owner = useSession().session.user.role === 'owner';
  if (owner) return <>{children}</>;
  return (
    <section className="page narrow">
      <Link className="back" to="/sensors">
        ← {t('device.back')}
      </Link>
      <PageHeading>{title}</PageHeading>
      <p className="notice notice-info">{t('owners.only')}</p>
    </section>
  );
}

/** A value to paste elsewhere (an address, a header), shown whole, with a Copy button. */
export function CopyField({ label, value, hint }: { label: string; value: string; hint?: string }) {
  const { t } = useTexts(texts);
  const id = useId();
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      // No clipboard access: select it so a keyboard copy works.
      inputRef.current?.select();
      setState('failed');
    }
  }

  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        {/* A text box that wraps, so a phone shows the whole address. */}
        <textarea
          id={id}
          ref={inputRef}
          readOnly
          rows={1}
          value={value}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={hint ? `${id}-hint` : undefined}
          onFocus={(event) => event.target.select()}
        />
        <button
          type="button"
          className="button secondary"
          aria-label={t('copy.label', { what: label })}
          onClick={copy}
        >
          {t('copy.button')}
        </button>
      </div>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      <p className="copy-state" role="status">
        {state === 'copied' ? t('copy.done') : state === 'failed' ? t('copy.failed') : ''}
      </p>
    </div>
  );
}
