// Field schemas and parsers for the lenient inputs the original service's clients send, and the
// wire formats of its answers. Schemas validate and document; parsers turn a validated value into
// the stored one. Form-encoded bodies arrive as strings: Ajv's coercion turns "12" into 12.
import { type TSchema, type TUnsafe, Type } from 'typebox';
import { type FieldError, validationFailed } from '../errors.js';

export const MAX_ID = 2_147_483_647;
export const MAX_INT = 2_147_483_647;

export const Id = (description?: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_ID, ...(description ? { description } : {}) });

/** A reference id in requests: an integer, a numeric string, null; 0 also means "none". */
export const RefInput = (description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 0, maximum: MAX_ID, description });

/** A reference id in answers. */
export const NullableId = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...(description ? { description } : {}) });

export const Text = (maxLength = 255, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

export const NullableText = (maxLength = 255, description?: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength,
    ...(description ? { description } : {}),
  });

export const Integer = (options: { minimum?: number; maximum?: number; description?: string } = {}) =>
  Type.Integer({ minimum: -MAX_INT, maximum: MAX_INT, ...options });

export const NullableInteger = (options: { minimum?: number; maximum?: number; description?: string } = {}) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: -MAX_INT, maximum: MAX_INT, ...options });

export const NullableNumber = (description?: string) =>
  Type.Unsafe<number | null>({
    type: ['number', 'null'],
    minimum: 0,
    maximum: 1e12,
    ...(description ? { description } : {}),
  });

export const LONG_TEXT = 200_000;

/** status in requests: 1/0, true/false, "1"/"0", "true"/"false". */
export const StatusInput: TUnsafe<boolean | number | string> = Type.Unsafe({
  type: ['boolean', 'integer', 'string'],
  enum: [true, false, 1, 0, '1', '0', 'true', 'false'],
  description: '1 = active, 0 = inactive; true/false accepted',
});

export function parseStatus(value: boolean | number | string): 0 | 1 {
  return value === true || value === 1 || value === '1' || value === 'true' ? 1 : 0;
}

/** A list of image paths: an array, or a JSON array serialized as a string. */
export const ImagesInput: TUnsafe<string | string[]> = Type.Unsafe({
  type: ['array', 'string'],
  items: { type: 'string', maxLength: 2048 },
  maxItems: 100,
  maxLength: 100_000,
  description: 'An array of image paths, or a JSON array serialized as a string',
});

/** A JSON array whose elements the specification does not describe (manufacturers, vendors, files). */
export const JsonArrayInput: TUnsafe<unknown[] | string> = Type.Unsafe({
  type: ['array', 'string'],
  maxItems: 1000,
  maxLength: 100_000,
  description: 'An array, or a JSON array serialized as a string',
});

export const NullableJsonArrayInput: TUnsafe<unknown[] | string | null> = Type.Unsafe({
  type: ['array', 'string', 'null'],
  maxItems: 1000,
  maxLength: 100_000,
  description: 'An array, or a JSON array serialized as a string; null clears',
});

/** How deep arrays and objects may nest in a request value (a deeper one is a 422 naming the field). */
export const MAX_JSON_DEPTH = 16;

/**
 * Whether a value nests arrays/objects deeper than `limit` levels. Walks with an explicit stack, so
 * a value nested thousands of levels deep cannot exhaust the call stack.
 */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const inner of Object.values(current)) {
      if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
    }
  }
  return false;
}

function tooDeep(field: string): FieldError {
  return { field, message: 'field.too_deep', params: { limit: MAX_JSON_DEPTH } };
}

/**
 * An images value as the stored JSON text. A string that is not a JSON array is taken as one
 * path; an empty string is an empty list. A JSON array whose elements are not all strings is a
 * field error.
 */
export function imagesToJson(field: string, value: string | string[], errors: FieldError[]): string {
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string')) {
      errors.push({ field, message: 'field.type', params: { type: 'array of strings' } });
      return '[]';
    }
    return JSON.stringify(value);
  }
  const trimmed = value.trim();
  if (trimmed === '') return '[]';
  const parsed = tryParseJson(trimmed);
  if (Array.isArray(parsed)) {
    if (!parsed.every((v) => typeof v === 'string')) {
      errors.push({ field, message: 'field.type', params: { type: 'array of strings' } });
      return '[]';
    }
    return JSON.stringify(parsed);
  }
  return JSON.stringify([value]);
}

/** A JSON array value as stored text; a string that is not a JSON array is a field error. */
export function jsonArrayToText(field: string, value: unknown[] | string, errors: FieldError[]): string {
  if (Array.isArray(value)) {
    if (nestsDeeperThan(value)) {
      errors.push(tooDeep(field));
      return '[]';
    }
    return JSON.stringify(value);
  }
  if (value.trim() === '') return '[]';
  const parsed = tryParseJson(value);
  if (!Array.isArray(parsed)) {
    errors.push({ field, message: 'field.invalid' });
    return '[]';
  }
  if (nestsDeeperThan(parsed)) {
    errors.push(tooDeep(field));
    return '[]';
  }
  return JSON.stringify(parsed);
}

export function parseJsonArray(text: string | null): unknown[] {
  if (text === null) return [];
  const parsed = tryParseJson(text);
  return Array.isArray(parsed) ? parsed : [];
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const DATE = String.raw`\d{4}-\d{2}-\d{2}`;
const TIME = String.raw`\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?`;
const ZONE = String.raw`(Z|z|[+-]\d{2}:?\d{2})?`;

/** `YYYY-MM-DD HH:MM:SS` or ISO 8601. */
export const TimestampInput = (description: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength: 40,
    pattern: `^${DATE}([ T]${TIME}${ZONE})?$`,
    description: `${description}; YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601`,
  });

/** `YYYY-MM-DD` (a time part, if sent, is ignored). */
export const DateInput = (description: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength: 40,
    pattern: `^${DATE}([ T]${TIME}${ZONE})?$`,
    description: `${description}; YYYY-MM-DD`,
  });

export const DateFilter = (description: string) =>
  Type.String({
    maxLength: 40,
    pattern: `^${DATE}([ T]${TIME}${ZONE})?$`,
    description: `${description}; YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC)`,
  });

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

/** A search parameter: `search[name]=x` (object), `search[]=x` (array) or `search=x` (string). */
export const SearchParam = (description: string): TSchema =>
  Type.Unsafe<string | string[] | Record<string, string>>({
    type: ['string', 'array', 'object'],
    maxLength: 255,
    maxItems: 20,
    items: { type: 'string', maxLength: 255 },
    maxProperties: 20,
    additionalProperties: { type: 'string', maxLength: 255 },
    description,
  });

/** Non-empty search terms of a search parameter; an object's keys pick columns. */
export function searchTerms(value: unknown): { terms: string[]; byKey: Record<string, string> } {
  if (typeof value === 'string') return { terms: value.trim() ? [value.trim()] : [], byKey: {} };
  if (Array.isArray(value)) {
    return { terms: value.map((v) => String(v).trim()).filter(Boolean), byKey: {} };
  }
  if (value && typeof value === 'object') {
    const byKey: Record<string, string> = {};
    for (const [key, v] of Object.entries(value)) if (String(v).trim()) byKey[key] = String(v).trim();
    return { terms: [], byKey };
  }
  return { terms: [], byKey: {} };
}

/** map(value) when the value was sent. */
export function optional<T, R>(value: T | undefined, map: (v: T) => R): R | undefined {
  return value === undefined ? undefined : map(value);
}

/** Removes undefined values, so an update sets only the fields the request carried. */
export function definedOnly<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** 0 means "none" for optional references, as the original service answers parent_id 0. */
export function refOrNull(value: number | null | undefined): number | null | undefined {
  return value === 0 ? null : value;
}

/** A record's name: required on create, never empty. */
export const Name = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, ...(description ? { description } : {}) });

/** from_date/to_date of a list as epoch-ms bounds; an impossible date is a 422 naming the field. */
export function dateRange(query: { from_date?: string; to_date?: string }): { from?: number; to?: number } {
  const errors: FieldError[] = [];
  const bound = (field: 'from_date' | 'to_date', edge: 'from' | 'to') => {
    const value = query[field];
    if (value === undefined || value === '') return undefined;
    const ms = filterBound(value, edge);
    if (ms === undefined) errors.push({ field, message: 'field.format', params: { format: 'date' } });
    return ms;
  };
  const range = { from: bound('from_date', 'from'), to: bound('to_date', 'to') };
  if (errors.length > 0) throw validationFailed(errors);
  return range;
}
