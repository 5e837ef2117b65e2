// A real Furrow app on a real port for tests, with an injected clock and a small HTTP client.
import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/platform/clock.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';

/** The secret key of test apps (and of worker processes that share their database). */
export const TEST_SECRET_KEY_HEX = 'a1'.repeat(32);

export interface TestApp {
  app: FastifyInstance;
  url: string;
  database: DatabaseHandle;
  clock: ManualClock;
  config: Config;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  /** Add routes before the app starts listening (test-only routes for the error handler). */
  extend?: (app: FastifyInstance) => void;
  logger?: AppDeps['logger'];
  /** Looks up receiving hosts instead of the system's resolver. */
  resolver?: AppDeps['resolver'];
}

export async function startTestApp(databaseUrl: string, options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX,
    ...options.env,
  });
  const database = openDatabase(databaseUrl, { maxConnections: 10 });
  await migrateToLatest(database.db);
  const clock = options.clock ?? new ManualClock(Date.now());
  const secretKey = config.secretKey!;
  const app = await buildApp({
    config,
    database,
    clock,
    secretKey,
    logger: options.logger ?? false,
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  options.extend?.(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    app,
    url: `http://127.0.0.1:${address.port}`,
    database,
    clock,
    config,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  form?: string;
  headers?: Record<string, string>;
  /** Raw body with its content type given in headers. */
  raw?: string | Buffer;
}

export async function request<T = any>(
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = options.form;
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: leave the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A client bound to one app and, optionally, one token. */
export function client(base: string, token?: string) {
  const call =
    (method: string) =>
    <T = any>(path: string, options: RequestOptions = {}) =>
      request<T>(base, method, path, { token, ...options });
  return {
    get: call('GET'),
    post: call('POST'),
    put: call('PUT'),
    delete: call('DELETE'),
    patch: call('PATCH'),
  };
}
