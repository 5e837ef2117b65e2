// Dates and numbers in the chosen language and the browser's time zone. The API's times are
// ISO 8601 UTC. Vietnamese reads date first ("24 thg 11, 2026 14:05:09 GMT+7"), like English.
import type { Language } from '../app/i18n';

const locales: Record<Language, string> = { en: 'en-GB', vi: 'vi-VN' };

function valid(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A date alone: "24 Nov 2026", "24 thg 11, 2026". */
export function formatDate(iso: string | null | undefined, language: Language): string {
  const date = valid(iso);
  if (!date) return iso ?? '';
  return new Intl.DateTimeFormat(locales[language], {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
  }).format(date);
}

/**
 * A moment: the date, then the time with its zone (never time first, whatever the locale's habit).
 * Seconds where they matter (a delivery log); farm records read to the minute.
 */
export function formatTime(
  iso: string | null | undefined,
  language: Language,
  precision: 'second' | 'minute' = 'second',
): string {
  const date = valid(iso);
  if (!date) return iso ?? '';
  const time = new Intl.DateTimeFormat(locales[language], {
    hour: '2-digit',
    minute: '2-digit',
    ...(precision === 'second' ? { second: '2-digit' as const } : {}),
    timeZoneName: 'short',
  }).format(date);
  return language === 'vi'
    ? `${formatDate(iso, language)} lúc ${time}`
    : `${formatDate(iso, language)}, ${time}`;
}

export function formatNumber(value: number, language: Language, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(locales[language], options).format(value);
}

/** "in 5 minutes", "2 hours ago" */
export function formatRelative(iso: string, language: Language, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const format = new Intl.RelativeTimeFormat(locales[language], { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return format.format(Math.round(seconds / 3600), 'hour');
  return format.format(Math.round(seconds / 86400), 'day');
}
