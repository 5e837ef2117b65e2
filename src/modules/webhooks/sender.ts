// Outgoing HTTP for deliveries: undici with keep-alive, a hard timeout, no redirects, at most 1 KB
// of the answer read, and the public-address rule applied to the address actually dialled.
import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, buildConnector, request } from 'undici';
import {
  type AllowList,
  guardedLookup,
  RefusedAddressError,
  refusedAddressReason,
  urlShapeProblem,
} from './address-guard.js';
import { readCaFile } from './ca-file.js';

export const RESPONSE_EXCERPT_BYTES = 1024;
/**
 * A connection (DNS, TCP and the TLS handshake) must be up within this, or within the whole
 * timeout when that is shorter: a receiver that accepts connections and never completes a handshake
 * holds a slot half as long as the default timeout, not all of it.
 */
export const CONNECT_TIMEOUT_MS = 5000;

export interface SenderOptions {
  timeoutMs: number;
  /** Default: CONNECT_TIMEOUT_MS, or timeoutMs when shorter. */
  connectTimeoutMs?: number;
  allowList: AllowList;
  /** WEBHOOK_CA_FILE: extra trusted CA certificates (PEM). */
  caFile?: string | undefined;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  durationMs: number;
  /** The receiver's Retry-After, as sent, on a 429 or 503 answer (see delivery-policy.ts). */
  retryAfter?: string;
}

/** Answers whose Retry-After moves the next attempt later. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

export function createSender(options: SenderOptions): Sender {
  const { allowList, timeoutMs } = options;
  const connectTimeoutMs = Math.min(options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, timeoutMs);
  // One TLS context for every connection: given as `ca`, the certificates would be parsed anew for
  // each connection (the public roots included), which costs more than the handshake.
  const secureContext = options.caFile
    ? createSecureContext({ ca: [...rootCertificates, readCaFile(options.caFile)] })
    : undefined;
  const baseConnect = buildConnector({
    timeout: connectTimeoutMs,
    lookup: guardedLookup(allowList),
    ...(secureContext ? { secureContext } : {}),
  } as buildConnector.BuildOptions);

  // Hosts written as IP addresses never reach lookup; every connection's peer is checked again.
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !allowList.hasName(host)) {
      const why = refusedAddressReason(host, allowList);
      if (why) return callback(new RefusedAddressError(host, why), null);
    }
    return baseConnect(opts, (err, socket) => {
      if (err || !socket) return callback(err, null);
      const peer = socket.remoteAddress;
      const why = peer && !allowList.hasName(host) ? refusedAddressReason(peer, allowList) : null;
      if (why) {
        socket.destroy();
        return callback(new RefusedAddressError(peer!, why), null);
      }
      return callback(null, socket);
    });
  };

  const agent = new Agent({
    connect,
    keepAliveTimeout: 10_000,
    connections: 16,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  return {
    async send(url, headers, body) {
      const shape = urlShapeProblem(url);
      if (shape) {
        const why =
          {
            'webhook.url.invalid': 'the URL is not valid',
            'webhook.url.https_required': 'the URL is not https',
            'webhook.url.credentials': 'the URL contains credentials',
          }[shape.key as string] ?? shape.key;
        return {
          ok: false,
          statusCode: null,
          error: `refused to send: ${why}`,
          responseExcerpt: null,
          durationMs: 0,
        };
      }
      const started = performance.now();
      // The whole attempt's deadline. undici takes an EventEmitter as its signal: an AbortSignal
      // with its listener costs about 7 µs an attempt, this well under 1.
      const deadline = new EventEmitter();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        deadline.emit('abort');
      }, timeoutMs);
      timer.unref();
      const elapsed = () => performance.now() - started;
      try {
        // undici never follows redirects without its redirect interceptor: a 3xx is an answer.
        const response = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: agent,
          signal: deadline,
        });
        const excerpt = await readExcerpt(response.body);
        const status = response.statusCode;
        const ok = status >= 200 && status < 300;
        let error: string | null = null;
        if (status >= 300 && status < 400) {
          const location = response.headers.location;
          error = `redirect (${status}) not followed${typeof location === 'string' ? ` to ${location.slice(0, 200)}` : ''}`;
        } else if (!ok) {
          error = `receiver answered HTTP ${status}`;
        }
        const retryAfter = RETRY_AFTER_STATUSES.has(status) ? response.headers['retry-after'] : undefined;
        return {
          ok,
          statusCode: status,
          error,
          responseExcerpt: excerpt,
          durationMs: elapsed(),
          ...(typeof retryAfter === 'string' ? { retryAfter: retryAfter.slice(0, 100) } : {}),
        };
      } catch (err) {
        let error: string;
        if (innermost(err)?.code === 'UND_ERR_CONNECT_TIMEOUT') {
          error = `no connection within ${connectTimeoutMs} ms (TCP connect and TLS handshake)`;
        } else if (timedOut || isTimeout(err)) {
          error = `timed out after ${timeoutMs} ms`;
        } else {
          error = describeError(err);
        }
        return {
          ok: false,
          statusCode: null,
          error,
          responseExcerpt: null,
          durationMs: elapsed(),
        };
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => agent.close(),
  };
}

/**
 * The answer's first RESPONSE_EXCERPT_BYTES, read with the stream's events (an async iterator costs
 * a promise per chunk); the rest is not read and the connection is dropped instead.
 */
function readExcerpt(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      body.off('data', onData);
      // A character cut at the 1 KB boundary is left out rather than replaced.
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      resolve(new StringDecoder('utf8').write(bytes.subarray(0, RESPONSE_EXCERPT_BYTES)));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES) {
        done();
        body.destroy();
      }
    };
    body.on('data', onData);
    body.once('end', done);
    body.on('error', reject);
    // Closed with neither an end nor an error (undici always gives one; this is a safeguard): the
    // answer was cut off. After an end, the first 1 KB or an error, the promise is settled already.
    body.once('close', () => reject(new Error('the answer was cut off')));
  });
}

function isTimeout(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    (err as Error)?.name === 'TimeoutError'
  );
}

/** undici wraps the socket's error; the innermost one says what happened. */
function innermost(err: unknown): (Error & { code?: string }) | undefined {
  let current = err as (Error & { code?: string; cause?: unknown }) | undefined;
  while (current?.cause instanceof Error) current = current.cause as Error & { code?: string };
  return current;
}

function describeError(err: unknown): string {
  const current = innermost(err);
  if (current instanceof RefusedAddressError) return current.message;
  const code = current?.code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the receiver',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    UND_ERR_SOCKET: 'connection closed by the receiver',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed and not trusted',
    SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate chain is not trusted',
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate is not trusted',
    ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
    CERT_HAS_EXPIRED: 'TLS certificate has expired',
  };
  const text = (code && known[code]) ?? current?.message ?? String(err);
  return code ? `${text} (${code})` : text;
}
