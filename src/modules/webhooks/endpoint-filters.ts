// Per-kind data filters of an endpoint: {event kind: {top-level data field: [allowed values]}}. An
// event of a filtered kind reaches the endpoint only when every named field equals one of its values.
import type { FieldError } from '../../platform/errors.js';
import { EVENT_TYPES } from './events.js';

export type FilterValue = string | number | boolean;
/** Event kind → data field → the values it may have. */
export type EndpointFilters = Record<string, Record<string, FilterValue[]>>;

export const MAX_FILTER_VALUES = 50;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isFilterValue = (value: unknown): value is FilterValue =>
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value));

/**
 * The problems of a `filters` input, each naming its part (`filters.<kind>.<field>`); none when it
 * is valid. null clears the filters.
 */
export function filterProblems(input: unknown): FieldError[] {
  if (input === null) return [];
  if (!isPlainObject(input)) return [{ field: 'filters', message: 'field.type', params: { type: 'object' } }];
  const problems: FieldError[] = [];
  for (const [kind, fields] of Object.entries(input)) {
    const at = `filters.${kind}`;
    if (!(EVENT_TYPES as readonly string[]).includes(kind)) {
      problems.push({ field: at, message: 'webhook.filter_kind', params: { kinds: EVENT_TYPES.join(', ') } });
      continue;
    }
    if (!isPlainObject(fields) || Object.keys(fields).length === 0) {
      problems.push({ field: at, message: 'webhook.filter_fields' });
      continue;
    }
    for (const [name, values] of Object.entries(fields)) {
      const field = `${at}.${name}`;
      if (!FIELD_NAME.test(name)) problems.push({ field, message: 'webhook.filter_field_name' });
      else if (
        !Array.isArray(values) ||
        values.length === 0 ||
        values.length > MAX_FILTER_VALUES ||
        !values.every(isFilterValue)
      ) {
        problems.push({ field, message: 'webhook.filter_values', params: { limit: MAX_FILTER_VALUES } });
      }
    }
  }
  return problems;
}

/** The stored form: null when there is no filter. */
export function serializeFilters(filters: EndpointFilters | null): string | null {
  return filters === null || Object.keys(filters).length === 0 ? null : JSON.stringify(filters);
}

export function parseFilters(stored: string | null): EndpointFilters | null {
  return stored === null ? null : (JSON.parse(stored) as EndpointFilters);
}

/** Whether an event of `type` with `data` passes the endpoint's filters (no filter for it: yes). */
export function passesFilters(
  filters: EndpointFilters | null,
  type: string,
  data: Record<string, unknown>,
): boolean {
  const fields = filters?.[type];
  if (fields === undefined) return true;
  for (const [name, allowed] of Object.entries(fields)) {
    const value = Object.hasOwn(data, name) ? data[name] : undefined;
    if (!isFilterValue(value) || !allowed.includes(value)) return false;
  }
  return true;
}
