// Task times. The API speaks UTC ("YYYY-MM-DD HH:MM:SS"); the farm app shows and asks in the
// browser's time zone. Weeks start on Monday (as in Vietnam and the UK).
import type { Language } from '../../app/i18n';

const locales: Record<Language, string> = { en: 'en-GB', vi: 'vi-VN' };
const pad = (n: number) => String(n).padStart(2, '0');

/** "2026-11-24 07:30:00" (UTC) as a moment; null when empty or unreadable. */
export function fromApi(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function toApi(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** The value of an <input type="datetime-local"> for a moment, in the browser's zone. */
export function toLocalInput(date: Date | null): string {
  if (!date) return '';
  return `${dayKey(date)}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function fromLocalInput(value: string): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The local calendar day of a moment: "2026-11-24". */
export function dayKey(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Local midnight of a "YYYY-MM-DD" day. */
export function fromDayKey(key: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key);
  if (!match) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(date.getTime()) ? null : date;
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}

export function startOfDay(date: Date): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

/** Monday, local midnight, of the week holding the date. */
export function startOfWeek(date: Date): Date {
  const day = (date.getDay() + 6) % 7;
  return addDays(startOfDay(date), -day);
}

/** "Mon 24 Nov" / "T2, 24 thg 11". */
export function formatDayName(date: Date, language: Language): string {
  return new Intl.DateTimeFormat(locales[language], {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  }).format(date);
}

/** "Monday 24 November" / "Thứ Hai, 24 tháng 11": a day's heading, read out in full. */
export function formatLongDay(date: Date, language: Language): string {
  return new Intl.DateTimeFormat(locales[language], {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
  }).format(date);
}

/** "07:30" in the browser's zone. */
export function formatClock(date: Date, language: Language): string {
  return new Intl.DateTimeFormat(locales[language], { hour: '2-digit', minute: '2-digit' }).format(date);
}
