// The periods the totals are asked for, as bounds in the browser's time zone: a day runs from
// its local midnight to the next one.
export type Preset = '7d' | '30d' | 'month' | 'year' | 'all' | 'custom';
export const PRESETS: readonly Preset[] = ['7d', '30d', 'month', 'year', 'all', 'custom'];

export interface Bounds {
  from?: string;
  to?: string;
}

const startOfDay = (y: number, m: number, d: number) => new Date(y, m, d).toISOString();
const endOfDay = (y: number, m: number, d: number) =>
  new Date(new Date(y, m, d + 1).getTime() - 1).toISOString();

/** A date input's value (YYYY-MM-DD) as its year, month (0-11) and day. */
function parts(value: string): [number, number, number] | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return match ? [Number(match[1]), Number(match[2]) - 1, Number(match[3])] : undefined;
}

/** Today as a date input's value, in the browser's time zone. */
export function today(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function periodBounds(preset: Preset, custom: { from: string; to: string }, now = new Date()): Bounds {
  const [y, m, d] = [now.getFullYear(), now.getMonth(), now.getDate()];
  const to = endOfDay(y, m, d);
  switch (preset) {
    case '7d':
      return { from: startOfDay(y, m, d - 6), to };
    case '30d':
      return { from: startOfDay(y, m, d - 29), to };
    case 'month':
      return { from: startOfDay(y, m, 1), to };
    case 'year':
      return { from: startOfDay(y, 0, 1), to };
    case 'all':
      return {};
    case 'custom': {
      const from = parts(custom.from);
      const until = parts(custom.to);
      return {
        ...(from ? { from: startOfDay(...from) } : {}),
        ...(until ? { to: endOfDay(...until) } : {}),
      };
    }
  }
}
