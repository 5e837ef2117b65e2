// The farm app's client of Furrow's API: openapi-fetch typed by schema.d.ts (generated from the
// server's /openapi.json), same origin, the session's token and the chosen language on every call.
// Failures become errors the app understands: ApiError (the API's error shape, with field errors),
// SessionExpiredError (401: back to sign-in) and NetworkError (no answer at all).
import createClient from 'openapi-fetch';
import type { Language } from '../app/i18n';
import type { paths } from './schema';

export type { paths };

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: FieldError[] = [],
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The token is missing, expired or revoked: the app goes back to sign-in. */
export class SessionExpiredError extends ApiError {}

/** fetch failed: no answer at all. */
export class NetworkError extends Error {}

/** What every call needs to know about the person using the app, read at call time. */
export interface CallContext {
  token(): string | null;
  language(): Language;
}

export function createApi(context: CallContext) {
  const client = createClient<paths>({
    baseUrl: '',
    headers: { accept: 'application/json' },
    cache: 'no-store',
    // Through window.fetch at call time (tests and the dev server may wrap it).
    fetch: (request: Request) => fetch(request),
  });
  client.use({
    onRequest({ request }) {
      const token = context.token();
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      request.headers.set('accept-language', context.language());
      return request;
    },
  });
  return client;
}

export type Api = ReturnType<typeof createApi>;

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The answer's data, or the failure as an error: `await unwrap(api.GET('/api/webhooks'))`.
 * Lists answer plain arrays or `{data: [...]}` and records `{data: record}` or an array of one;
 * callers pick with `one()` and `many()`.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await call;
  } catch (err) {
    throw new NetworkError(err instanceof Error ? err.message : String(err));
  }
  const { response } = result;
  if (response.ok) return result.data as T;
  throw errorFromAnswer(response.status, result.error);
}

/** The API's error shape: `[{meta: {status_code, message, code?, errors?: [{field, message}]}, data: []}]`. */
export function errorFromAnswer(status: number, body: unknown): ApiError {
  const entry = Array.isArray(body) ? body[0] : body;
  const meta =
    entry && typeof entry === 'object' && 'meta' in entry
      ? (entry as { meta: { message?: string; code?: string; errors?: FieldError[] } }).meta
      : undefined;
  const message = meta?.message ?? `HTTP ${status}`;
  if (status === 401) return new SessionExpiredError(401, message, [], meta?.code ?? null);
  return new ApiError(status, message, meta?.errors ?? [], meta?.code ?? null);
}

/** One record from an answer: `{data: record}`, an array of one, or the record itself. */
export function one<T>(body: unknown): T {
  if (Array.isArray(body)) return body[0] as T;
  if (body && typeof body === 'object' && 'data' in body) {
    const data = (body as { data: unknown }).data;
    if (data && typeof data === 'object' && !Array.isArray(data)) return data as T;
  }
  return body as T;
}

/** A list from an answer: a plain array or `{data: [...]}`. */
export function many<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  if (body && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)) {
    return (body as { data: T[] }).data;
  }
  return [];
}
