// Dates and timestamps as the API reads and writes them: the inputs the original clients send
// (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS` in UTC, ISO 8601) and the shapes of the answers.

const DATE = String.raw`\d{4}-\d{2}-\d{2}`;
const TIME = String.raw`\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?`;
const ZONE = String.raw`(Z|z|[+-]\d{2}:?\d{2})?`;

/** The pattern of every date and timestamp input: a date, then optionally a time and a zone. */
export const DATE_TIME_PATTERN = `^${DATE}([ T]${TIME}${ZONE})?$`;

/** Epoch ms of a timestamp input, or undefined when it names no real instant. */
export function parseTimestamp(value: string): number | undefined {
  const match = new RegExp(`^(${DATE})(?:[ T](${TIME})(${ZONE}))?$`).exec(value.trim());
  if (!match) return undefined;
  const [, date, time = '00:00:00', , , zone = ''] = match;
  if (!isRealDate(date!)) return undefined;
  const [h, m] = time.split(':').map(Number);
  if (h! > 23 || m! > 59 || Number(time.split(':')[2]?.split('.')[0] ?? 0) > 59) return undefined;
  const normalizedZone =
    zone === '' || zone === 'z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const ms = Date.parse(`${date}T${time.length === 5 ? `${time}:00` : time}${normalizedZone}`);
  // An offset can move an instant out of the years 0001-9999 the answers can spell.
  return Number.isNaN(ms) || ms < MIN_INSTANT || ms > MAX_INSTANT ? undefined : ms;
}

/** 0001-01-01 00:00:00 UTC and 9999-12-31 23:59:59.999 UTC. */
const MIN_INSTANT = -62_135_596_800_000;
const MAX_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The YYYY-MM-DD part of a date input, or undefined when it is not a real date. */
export function parseDate(value: string): string | undefined {
  const date = value.trim().slice(0, 10);
  return isRealDate(date) && parseTimestamp(value) !== undefined ? date : undefined;
}

function isRealDate(date: string): boolean {
  const [y, m, d] = date.split('-').map(Number);
  if (y! < 1) return false;
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const probe = new Date(0);
  probe.setUTCFullYear(y!, m! - 1, d!);
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === m! - 1 && probe.getUTCDate() === d;
}

/** A date filter's bounds: a date-only `to` includes its whole day. */
export function filterBound(value: string, edge: 'from' | 'to'): number | undefined {
  const ms = parseTimestamp(value);
  if (ms === undefined) return undefined;
  return edge === 'to' && /^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? ms + 86_399_999 : ms;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the spec's timestamp shape. */
export function formatTimestamp(ms: number | null): string | null {
  if (ms === null) return null;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** ISO 8601 in UTC, the shape of the IoT and harvest answers. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoTimeOrNull(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms);
}
