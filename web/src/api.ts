// The screen's client of Furrow's API: same origin, token from the session, errors in the API's
// shape ([{meta: {status_code, message, errors: [{field, message}]}, data: []}]) turned into ApiError.
import type { Language } from './i18n';

export type Role = 'owner' | 'staff';

export interface Session {
  token: string;
  expiresAt: string;
  user: { id: number; username: string; name: string; role: Role };
  tenant: { code: string; name: string };
}

export type EndpointStatus = 'active' | 'paused';
export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed' | 'held';

export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: EndpointStatus;
  paused_reason: string | null;
  consecutive_failures: number;
  held_count: number;
  created_at: string;
  updated_at: string;
  /** Only in the answers of create and rotate-secret. */
  secret?: string;
  /** When the API includes it: the newest delivery, without its request. */
  last_delivery?: Pick<Delivery, 'id' | 'event_type' | 'status' | 'created_at'> | null;
}

export interface Attempt {
  number: number;
  started_at: string;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export interface Delivery {
  id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  request?: { headers: Record<string, string>; body: string };
  attempts?: Attempt[];
}

export interface EndpointInput {
  url: string;
  events: string[];
  description: string;
}

export const EVENT_KINDS = ['iot.alert.raised', 'iot.device.offline', 'harvest.batch.created'] as const;
export const ALL_EVENTS = '*';

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The token is missing, expired or revoked: the screen goes back to sign-in. */
export class SessionExpiredError extends ApiError {}

/** fetch failed: no answer at all. */
export class NetworkError extends Error {}

interface CallOptions {
  token?: string | undefined;
  body?: unknown;
  language: Language;
  headers?: Record<string, string>;
}

async function call(method: string, path: string, options: CallOptions): Promise<unknown> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'accept-language': options.language,
    ...options.headers,
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
    });
  } catch (err) {
    throw new NetworkError((err as Error).message);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.ok) return body;
  const meta = errorMeta(body);
  const message = meta?.message ?? `HTTP ${response.status}`;
  if (response.status === 401) throw new SessionExpiredError(401, message);
  throw new ApiError(response.status, message, meta?.errors ?? []);
}

function errorMeta(body: unknown): { message?: string; errors?: FieldError[] } | undefined {
  const entry = Array.isArray(body) ? body[0] : body;
  if (entry && typeof entry === 'object' && 'meta' in entry) {
    return (entry as { meta: { message?: string; errors?: FieldError[] } }).meta;
  }
  return undefined;
}

/** One record from an answer: an array of one, `{data: record}` or the record itself. */
function one<T>(body: unknown): T {
  if (Array.isArray(body)) return body[0] as T;
  if (body && typeof body === 'object' && 'data' in body) {
    const data = (body as { data: unknown }).data;
    if (data && typeof data === 'object' && !Array.isArray(data)) return data as T;
  }
  return body as T;
}

/** A list from an answer: a plain array or `{data: [...]}`. */
function many<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  if (body && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)) {
    return (body as { data: T[] }).data;
  }
  return [];
}

export type LoginResult = { ok: true; session: Session } | { ok: false; message: string };

export async function login(
  credentials: { tenantcode: string; username: string; password: string },
  language: Language,
): Promise<LoginResult> {
  // No `language` field: that would pin the token's language; Accept-Language follows the screen.
  const body = (await call('POST', '/api/auth/login', { body: credentials, language })) as {
    meta: { status_code: number; message: string };
    data?: {
      token: string;
      expires_at: string;
      user: Session['user'];
      tenant: Session['tenant'];
    };
  };
  if (body.meta.status_code !== 0 || !body.data) return { ok: false, message: body.meta.message };
  const { token, expires_at, user, tenant } = body.data;
  return {
    ok: true,
    session: {
      token,
      expiresAt: expires_at,
      user: { id: user.id, username: user.username, name: user.name, role: user.role },
      tenant: { code: tenant.code, name: tenant.name },
    },
  };
}

/** A username of the tenant with many failed sign-ins (owners only). */
export interface LoginAlert {
  username: string;
  failed_attempts: number;
  addresses: number;
  last_failed_at: string;
  locked_until: string | null;
}

/** An API bound to a session and a language. */
export function apiFor(session: Session, language: Language) {
  const base = { token: session.token, language };
  const webhook = (id: string) => `/api/webhooks/${encodeURIComponent(id)}`;
  return {
    logout: () => call('POST', '/api/auth/logout', base),
    me: async () =>
      one<{ user: Session['user']; tenant: Session['tenant'] }>(await call('GET', '/api/auth/me', base)),
    loginAlerts: async () => many<LoginAlert>(await call('GET', '/api/auth/login-alerts', base)),
    listEndpoints: async () => many<Endpoint>(await call('GET', '/api/webhooks', base)),
    getEndpoint: async (id: string) => one<Endpoint>(await call('GET', webhook(id), base)),
    createEndpoint: async (input: EndpointInput) =>
      one<Endpoint>(await call('POST', '/api/webhooks', { ...base, body: input })),
    updateEndpoint: async (id: string, input: EndpointInput) =>
      call('PUT', webhook(id), {
        ...base,
        body: input,
        headers: { prefer: 'return=representation' },
      }),
    deleteEndpoint: (id: string) => call('DELETE', webhook(id), base),
    sendTest: (id: string) => call('POST', `${webhook(id)}/test`, base),
    rotateSecret: async (id: string) =>
      one<Endpoint>(await call('POST', `${webhook(id)}/rotate-secret`, base)),
    enableEndpoint: (id: string) => call('POST', `${webhook(id)}/enable`, base),
    listDeliveries: async (id: string) =>
      many<Delivery>(await call('GET', `${webhook(id)}/deliveries`, base)),
    redeliver: (id: string, deliveryId: string) =>
      call('POST', `${webhook(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`, base),
  };
}

export type Api = ReturnType<typeof apiFor>;

const SESSION_KEY = 'furrow.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(SESSION_KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as Session;
    return typeof session.token === 'string' ? session : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(SESSION_KEY);
}
