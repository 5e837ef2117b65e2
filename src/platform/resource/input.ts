// Input parsing: a validated request value into the stored one (status flags, image lists, JSON
// arrays, references where 0 means none), search terms, the date range of a list, and the checks
// of a body as sent.
import type { TSchema } from 'typebox';
import { filterBound } from '../dates.js';
import { type FieldError, validationFailed } from '../errors.js';

/** A status input as stored: 1 (active) or 0. */
export function parseStatus(value: boolean | number | string): 0 | 1 {
  return value === true || value === 1 || value === '1' || value === 'true' ? 1 : 0;
}

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
  // A loop, not entries and fromEntries: this runs for every create and update.
  const defined: Record<string, unknown> = {};
  for (const key of Object.keys(values)) if (values[key] !== undefined) defined[key] = values[key];
  return defined as Partial<T>;
}

/** 0 means "none" for optional references, as the original service answers parent_id 0. */
export function refOrNull(value: number | null | undefined): number | null | undefined {
  return value === 0 ? null : value;
}

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

/**
 * Checks on the body as sent, before Ajv's coercion can hide them: a null for a field that may not
 * be null (coercion would turn it into 0, "" or false) and values nested deeper than
 * MAX_JSON_DEPTH levels. Both are 422s naming the field.
 */
export function checkRawBody(body: unknown, schema: TSchema | undefined): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  const errors: FieldError[] = [];
  for (const field of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[field];
    const property = Object.hasOwn(properties, field) ? properties[field] : undefined;
    if (value === null && property !== undefined && !allowsNull(property)) {
      errors.push({ field, message: 'field.not_null' });
    } else if (nestsDeeperThan(value)) {
      errors.push({ field, message: 'field.too_deep', params: { limit: MAX_JSON_DEPTH } });
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
}

/** Whether a schema accepts null (a schema that names no type accepts anything). */
function allowsNull(schema: TSchema): boolean {
  const s = schema as { type?: unknown; anyOf?: TSchema[]; oneOf?: TSchema[]; enum?: unknown[] };
  if (s.anyOf) return s.anyOf.some(allowsNull);
  if (s.oneOf) return s.oneOf.some(allowsNull);
  if (s.enum) return s.enum.includes(null);
  if (s.type === undefined) return true;
  return s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'));
}
