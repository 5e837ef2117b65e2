// The management API's inputs that need more than their schema: data filters, and the log's
// query with its timestamps. Each throws a 422 naming every bad part.
import { parseTimestamp } from '../../platform/dates.js';
import { type FieldError, validationFailed } from '../../platform/errors.js';
import { type CustomHeaders, customHeaderProblems, storedCustomHeaders } from './custom-headers.js';
import { type EndpointFilters, filterProblems, serializeFilters } from './endpoint-filters.js';
import type { DeliveryFilter, DeliveryRow } from './webhook.repository.js';

/** Events without duplicates; "*" alone when it is selected. */
export function normalizeEvents(events: string[]): string[] {
  const unique = [...new Set(events)];
  return unique.includes('*') ? ['*'] : unique;
}

/** The owner's headers as they may be stored: a 422 naming each header that may not be set. */
export function checkedCustomHeaders(headers: CustomHeaders | null): string | null {
  if (headers === null) return null;
  const problems = customHeaderProblems(headers);
  if (problems.length > 0) throw validationFailed(problems);
  return storedCustomHeaders(headers);
}

/** The stored filters of an input; undefined when not given, null when cleared. */
export function filtersOf(input: unknown): string | null | undefined {
  if (input === undefined) return undefined;
  const problems = filterProblems(input);
  if (problems.length > 0) throw validationFailed(problems);
  return serializeFilters(input as EndpointFilters | null);
}

/** A timestamp input (YYYY-MM-DD HH:MM:SS or ISO 8601) as epoch ms; a problem naming the field if bad. */
export function timestampOf(
  field: string,
  value: string | undefined,
  problems: FieldError[],
): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseTimestamp(value);
  if (ms === undefined) problems.push({ field, message: 'field.timestamp' });
  return ms;
}

/** The log's query: every field optional; since and until as the API's timestamps. */
export interface DeliveryQuery {
  status?: DeliveryRow['status'];
  event_type?: string;
  since?: string;
  until?: string;
}

export function deliveryFilterOf(query: DeliveryQuery): DeliveryFilter {
  const problems: FieldError[] = [];
  const since = timestampOf('since', query.since, problems);
  const until = timestampOf('until', query.until, problems);
  if (since !== undefined && until !== undefined && since > until) {
    problems.push({ field: 'until', message: 'webhook.until_before_since' });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return { status: query.status, eventType: query.event_type, since, until };
}
