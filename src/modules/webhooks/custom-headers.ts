// The owner's own request headers on an endpoint (a token its gateway checks): what may be set, and
// how their values stay out of the delivery log. Sent on every attempt, under Furrow's own headers.
import type { FieldError } from '../../platform/errors.js';

export const MAX_CUSTOM_HEADERS = 10;
export const MAX_HEADER_NAME_LENGTH = 100;
export const MAX_HEADER_VALUE_LENGTH = 1024;
/** What the delivery log shows in place of a custom header's value. */
export const REDACTED_VALUE = '[redacted]';

/** RFC 7230 token: the characters a header name may hold. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, spaces and tabs: nothing that could end the header line or confuse a proxy. */
const VALUE = /^[\t\x20-\x7e]*$/;

/** Names Furrow sets and signs itself: a custom header must not replace or shadow them. */
const OWN_PREFIXES = ['webhook-', 'x-service-'];
const OWN_NAMES = new Set(['user-agent']);
/** Names HTTP owns: the body's description, the host, and the hop-by-hop headers. */
const HTTP_PREFIXES = ['content-', 'proxy-'];
const HTTP_NAMES = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

export type CustomHeaders = Record<string, string>;

/** The 422 field errors of a headers object, each naming its header; empty when it may be saved. */
export function customHeaderProblems(headers: CustomHeaders): FieldError[] {
  const problems: FieldError[] = [];
  const entries = Object.entries(headers);
  if (entries.length > MAX_CUSTOM_HEADERS) {
    problems.push({
      field: 'headers',
      message: 'webhook.header.too_many',
      params: { count: entries.length, limit: MAX_CUSTOM_HEADERS },
    });
  }
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const field = `headers.${name}`;
    const lower = name.toLowerCase();
    if (name.length > MAX_HEADER_NAME_LENGTH) {
      problems.push({
        field,
        message: 'webhook.header.name_too_long',
        params: { limit: MAX_HEADER_NAME_LENGTH },
      });
      continue;
    }
    if (!TOKEN.test(name)) {
      problems.push({ field, message: 'webhook.header.name_invalid', params: { name } });
      continue;
    }
    if (OWN_NAMES.has(lower) || OWN_PREFIXES.some((p) => lower.startsWith(p))) {
      problems.push({ field, message: 'webhook.header.reserved_own', params: { name } });
      continue;
    }
    if (HTTP_NAMES.has(lower) || HTTP_PREFIXES.some((p) => lower.startsWith(p))) {
      problems.push({ field, message: 'webhook.header.reserved_http', params: { name } });
      continue;
    }
    if (seen.has(lower)) {
      problems.push({ field, message: 'webhook.header.duplicate', params: { name } });
      continue;
    }
    seen.add(lower);
    // The value is never repeated in an answer: it may be a secret.
    if (typeof value !== 'string' || !VALUE.test(value)) {
      problems.push({ field, message: 'webhook.header.value_invalid' });
    } else if (value.length > MAX_HEADER_VALUE_LENGTH) {
      problems.push({
        field,
        message: 'webhook.header.value_too_long',
        params: { limit: MAX_HEADER_VALUE_LENGTH },
      });
    }
  }
  return problems;
}

/** The stored column (JSON text or null) as headers; anything unreadable counts as none. */
export function parseCustomHeaders(stored: string | null): CustomHeaders | null {
  if (stored === null || stored === '') return null;
  try {
    const parsed = JSON.parse(stored) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const entries = Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string');
    return entries.length === 0 ? null : Object.fromEntries(entries);
  } catch {
    return null;
  }
}

/** The column's value for these headers: null for none. */
export function storedCustomHeaders(headers: CustomHeaders | null | undefined): string | null {
  return headers && Object.keys(headers).length > 0 ? JSON.stringify(headers) : null;
}

/** The request headers as the delivery log keeps them: custom headers' values redacted. */
export function redactCustomHeaders(
  sent: Record<string, string>,
  custom: CustomHeaders | null,
): Record<string, string> {
  if (!custom) return sent;
  const redacted = { ...sent };
  for (const name of Object.keys(custom)) if (name in redacted) redacted[name] = REDACTED_VALUE;
  return redacted;
}
