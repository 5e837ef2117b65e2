// The only reader of process.env: every setting is parsed and validated here, once, at start.
import { isIP } from 'node:net';
import type { PostgresTimeouts } from './platform/db/postgres-pool.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  /** DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS (PostgreSQL). */
  readonly databaseTimeouts: PostgresTimeouts;
  /** DATABASE_PREPARED_STATEMENTS (PostgreSQL): repeated statements prepared once per connection. */
  readonly databasePreparedStatements: boolean;
  /** READ_CACHE (SQLite): list and detail answers kept while nothing they read changes. */
  readonly readCache: boolean;
  /** 32-byte key from FURROW_SECRET_KEY; undefined means "use or create the key file under ./data/". */
  readonly secretKey: Buffer | undefined;
  readonly tokenTtlSeconds: number;
  readonly webhookRetryScheduleMs: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookAllowPrivateHosts: readonly string[];
  readonly webhookCaFile: string | undefined;
  /** WEBHOOK_SEND_THREAD: deliveries' HTTP on a thread of its own, or on the main thread (default). */
  readonly webhookSendThread: boolean;
  /** MQTT_ALLOW_PRIVATE_HOSTS: broker hosts/CIDRs exempt from the public-address rule. */
  readonly mqttAllowPrivateHosts: readonly string[];
  readonly iotSweepIntervalMs: number;
  /** Days raw readings (and their 1-minute roll-ups) are kept; 0 keeps them forever. */
  readonly iotRawRetentionDays: number;
  readonly logLevel: string;
  readonly dataDir: string;
  /** Fastify's trustProxy: false, true, or the proxy addresses/CIDRs whose X-Forwarded-For is believed. */
  readonly trustProxy: boolean | string[];
  /** A request's headers must arrive within this, and the whole request (body too) within the next. */
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
  /** Open connections one process accepts; past it new ones are closed at once. */
  readonly httpMaxConnections: number;
  /** FURROW_DEMO: whether a first start on an empty SQLite database creates the demo tenant. */
  readonly demo: boolean;
  /** SMTP_URL: smtp:// or smtps:// with optional user:password; undefined turns e-mail off. */
  readonly smtpUrl: string | undefined;
  /** MAIL_FROM: the From of every e-mail. */
  readonly mailFrom: string;
  /** METRICS_PORT: where GET /metrics is served (Prometheus); undefined turns metrics off. */
  readonly metricsPort: number | undefined;
  /** METRICS_HOST: the address the metrics server listens on. */
  readonly metricsHost: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** PostgreSQL timeouts when the environment does not set them. */
export const DEFAULT_DATABASE_TIMEOUTS: PostgresTimeouts = Object.freeze({
  connectMs: 5000,
  statementMs: 10_000,
  idleInTransactionMs: 30_000,
});

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const errors: ConfigError[] = [];
  const read = <T>(name: string, fallback: T, parse: (raw: string) => T): T => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    try {
      return parse(raw.trim());
    } catch (err) {
      errors.push(new ConfigError(name, (err as Error).message));
      return fallback;
    }
  };

  const config: Config = {
    port: read('PORT', 3000, (raw) => parseInteger(raw, 0, 65535, 'a port number from 0 to 65535')),
    host: read('HOST', '127.0.0.1', parseHost),
    databaseUrl: read('DATABASE_URL', 'sqlite:./data/furrow.db', parseDatabaseUrl),
    databaseTimeouts: Object.freeze({
      connectMs: read('DATABASE_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectMs, (raw) =>
        parseInteger(raw, 100, 600_000, 'milliseconds from 100 to 600000'),
      ),
      statementMs: read('DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementMs, (raw) =>
        parseLimit(raw, 100, 3_600_000),
      ),
      idleInTransactionMs: read(
        'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
        DEFAULT_DATABASE_TIMEOUTS.idleInTransactionMs,
        (raw) => parseLimit(raw, 1000, 3_600_000),
      ),
    }),
    databasePreparedStatements: read('DATABASE_PREPARED_STATEMENTS', true, parseSwitch),
    readCache: read('READ_CACHE', true, parseSwitch),
    secretKey: read('FURROW_SECRET_KEY', undefined, parseSecretKey),
    tokenTtlSeconds: read('TOKEN_TTL_SECONDS', 36000, (raw) =>
      parseInteger(raw, 60, 31_536_000, 'a number of seconds from 60 to 31536000 (one year)'),
    ),
    webhookRetryScheduleMs: read(
      'WEBHOOK_RETRY_SCHEDULE',
      parseSchedule('1m,5m,30m,2h,6h,24h'),
      parseSchedule,
    ),
    webhookTimeoutMs: read('WEBHOOK_TIMEOUT_MS', 10000, (raw) =>
      parseInteger(raw, 100, 60000, 'milliseconds from 100 to 60000'),
    ),
    webhookAllowPrivateHosts: read('WEBHOOK_ALLOW_PRIVATE_HOSTS', [] as string[], parseHostList),
    webhookCaFile: read('WEBHOOK_CA_FILE', undefined, (raw) => raw),
    webhookSendThread: read('WEBHOOK_SEND_THREAD', false, parseSwitch),
    mqttAllowPrivateHosts: read('MQTT_ALLOW_PRIVATE_HOSTS', [] as string[], parseHostList),
    iotSweepIntervalMs: read('IOT_SWEEP_INTERVAL_MS', 15000, (raw) =>
      parseInteger(raw, 10, 3_600_000, 'milliseconds from 10 to 3600000'),
    ),
    iotRawRetentionDays: read('IOT_RAW_RETENTION_DAYS', 90, (raw) =>
      parseInteger(raw, 0, 36_500, 'a number of days from 1 to 36500, or 0 to keep raw readings forever'),
    ),
    logLevel: read('LOG_LEVEL', 'info', (raw) => {
      if (!LOG_LEVELS.includes(raw)) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
      return raw;
    }),
    dataDir: read('FURROW_DATA_DIR', './data', (raw) => raw),
    trustProxy: read('TRUST_PROXY', false as boolean | string[], parseTrustProxy),
    httpHeadersTimeoutMs: read('HTTP_HEADERS_TIMEOUT_MS', 10_000, (raw) =>
      parseInteger(raw, 100, 600_000, 'milliseconds from 100 to 600000'),
    ),
    httpRequestTimeoutMs: read('HTTP_REQUEST_TIMEOUT_MS', 30_000, (raw) =>
      parseInteger(raw, 100, 3_600_000, 'milliseconds from 100 to 3600000'),
    ),
    httpMaxConnections: read('HTTP_MAX_CONNECTIONS', 10_000, (raw) =>
      parseInteger(raw, 1, 1_000_000, 'a number of connections from 1 to 1000000'),
    ),
    demo: read('FURROW_DEMO', true, parseSwitch),
    smtpUrl: read('SMTP_URL', undefined, parseSmtpUrl),
    mailFrom: read('MAIL_FROM', 'Furrow <furrow@localhost>', parseMailFrom),
    metricsPort: read('METRICS_PORT', undefined as number | undefined, (raw) =>
      parseInteger(raw, 1, 65535, 'a port number from 1 to 65535 (leave it unset to turn metrics off)'),
    ),
    metricsHost: read('METRICS_HOST', '127.0.0.1', parseHost),
  };
  if (config.metricsPort !== undefined && config.metricsPort === config.port) {
    errors.push(
      new ConfigError(
        'METRICS_PORT',
        `${config.metricsPort} is the API's PORT too; the metrics are served on a port of their own`,
      ),
    );
  }
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    errors.push(
      new ConfigError(
        'HTTP_HEADERS_TIMEOUT_MS',
        `${config.httpHeadersTimeoutMs} is longer than HTTP_REQUEST_TIMEOUT_MS (${config.httpRequestTimeoutMs}); the headers are part of the request`,
      ),
    );
  }

  if (errors.length > 0) throw new AggregateConfigError(errors);
  return Object.freeze(config);
}

export class AggregateConfigError extends Error {
  constructor(readonly errors: ConfigError[]) {
    super(`Invalid configuration:\n${errors.map((e) => `  - ${e.message}`).join('\n')}`);
    this.name = 'AggregateConfigError';
  }
}

function parseSwitch(raw: string): boolean {
  const value = raw.toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(value)) return true;
  if (['off', 'false', '0', 'no'].includes(value)) return false;
  throw new Error(`"${raw}" is neither on nor off`);
}

function parseInteger(raw: string, min: number, max: number, what: string): number {
  if (!/^\d+$/.test(raw)) throw new Error(`"${raw}" is not ${what}`);
  const value = Number(raw);
  if (value < min || value > max) throw new Error(`"${raw}" is out of range; expected ${what}`);
  return value;
}

/** Milliseconds within [min, max], or 0 for no limit. */
function parseLimit(raw: string, min: number, max: number): number {
  const what = `milliseconds from ${min} to ${max}, or 0 for no limit`;
  return raw === '0' ? 0 : parseInteger(raw, min, max, what);
}

function parseHost(raw: string): string {
  if (isIP(raw) || /^[a-zA-Z0-9.-]+$/.test(raw)) return raw;
  throw new Error(`"${raw}" is not an IP address or host name`);
}

function parseDatabaseUrl(raw: string): string {
  if (raw.startsWith('sqlite:') && raw.length > 'sqlite:'.length) return raw;
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
      return raw;
    } catch {
      throw new Error('is not a valid postgres:// URL');
    }
  }
  throw new Error(
    'must be sqlite:PATH (for example sqlite:./data/furrow.db) or postgres://USER@HOST:PORT/DB',
  );
}

function parseSmtpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('is not a valid URL; write smtp://USER:PASSWORD@HOST:PORT or smtps://…');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new Error(`must start with smtp:// or smtps:// (not ${url.protocol}//)`);
  if (url.hostname === '') throw new Error('names no host; write smtp://USER:PASSWORD@HOST:PORT');
  if (url.pathname !== '' && url.pathname !== '/')
    throw new Error('must be smtp://USER:PASSWORD@HOST:PORT with no path');
  return raw;
}

/** The SMTP URL with its password replaced, for logs and messages. */
export function redactSmtpUrl(raw: string): string {
  const url = new URL(raw);
  if (url.password !== '') url.password = '***';
  return url.toString().replace(/\/$/, '');
}

function parseMailFrom(raw: string): string {
  // "Name <address>" or a bare address; no line breaks, so it cannot add headers.
  const valid =
    !/[\r\n]/.test(raw) && /^(?:[^<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(raw.trim());
  if (!valid)
    throw new Error(`"${raw}" is not an address such as furrow@example.com or "Furrow <furrow@example.com>"`);
  return raw.trim();
}

function parseSecretKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (
    key.length !== 32 ||
    (!/^[0-9a-fA-F]{64}$/.test(raw) && key.toString('base64') !== normalizeBase64(raw))
  ) {
    throw new Error('must be 32 random bytes as 64 hex characters or base64 (openssl rand -base64 32)');
  }
  return key;
}

function normalizeBase64(raw: string): string {
  const standard = raw.replace(/-/g, '+').replace(/_/g, '/');
  return standard + '='.repeat((4 - (standard.length % 4)) % 4);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "1m,5m,30m" → [60000, 300000, 1800000]. Units: ms, s, m, h, d. An empty list is not allowed. */
export function parseSchedule(raw: string): number[] {
  const parts = raw.split(',').map((p) => p.trim());
  return parts.map((part) => {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(part);
    if (!match)
      throw new Error(`"${part}" is not a delay; write a list like 1m,5m,30m,2h (units ms, s, m, h, d)`);
    const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
    if (ms > 7 * 86_400_000) throw new Error(`"${part}" is longer than 7 days`);
    return ms;
  });
}

function parseHostList(raw: string): string[] {
  const items = raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  for (const item of items) {
    const [address, bits, extra] = item.split('/');
    const valid =
      extra === undefined &&
      (bits === undefined
        ? isIP(address!) !== 0 || /^[a-z0-9.-]+$/.test(address!)
        : isIP(address!) !== 0 && /^\d+$/.test(bits) && Number(bits) <= (isIP(address!) === 4 ? 32 : 128));
    if (!valid) throw new Error(`"${item}" is not a host name, IP address or CIDR range`);
  }
  return items;
}

function parseTrustProxy(raw: string): boolean | string[] {
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  try {
    return parseHostList(raw).map((item) => {
      if (!/^[\d.:a-f]+(\/\d+)?$/.test(item)) throw new Error();
      return item;
    });
  } catch {
    throw new Error('must be true, false, or a comma list of proxy IP addresses/CIDR ranges');
  }
}
