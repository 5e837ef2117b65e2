// A season's dates are calendar days (YYYY-MM-DD), not moments: shown as the same day everywhere.
import type { Language } from '../../app/i18n';
import { formatDate } from '../../ui/format';

export function formatDay(day: string | null | undefined, language: Language): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(day ?? '');
  if (!match) return day ?? '';
  const local = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return formatDate(local.toISOString(), language);
}
