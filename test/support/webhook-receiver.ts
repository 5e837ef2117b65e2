// A real HTTPS webhook receiver for tests: a self-signed certificate made at test time (trust it
// with WEBHOOK_CA_FILE=receiver.caFile), every request recorded with its raw body and headers,
// and scriptable answers: status, delay, redirect, or a closed connection.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body exactly as received. */
  body: string;
  /** Date.now() when the request was complete. */
  receivedAt: number;
}

export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer 302 with this Location. */
  redirectTo?: string;
  /** Drop the connection without an answer. */
  close?: boolean;
}

export type Script = (request: ReceivedRequest, index: number) => Answer | undefined;

export interface TestCertificate {
  dir: string;
  certFile: string;
  keyFile: string;
  /** The certificate is its own CA: pass this as WEBHOOK_CA_FILE. */
  caFile: string;
}

let shared: TestCertificate | undefined;

/** A certificate for 127.0.0.1, ::1 and localhost, made once per test process with openssl. */
export function testCertificate(): TestCertificate {
  if (shared) return shared;
  const dir = mkdtempSync(join(tmpdir(), 'furrow-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=furrow-test-receiver',
      '-addext',
      'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    { stdio: 'ignore' },
  );
  shared = { dir, certFile, keyFile, caFile: certFile };
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return shared;
}

export interface Receiver {
  /** https://127.0.0.1:PORT */
  origin: string;
  port: number;
  caFile: string;
  requests: ReceivedRequest[];
  /** How each request is answered (default 200 "ok"); set it at any time. */
  script: Script;
  /** Resolves once `count` requests have been received. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(script: Script = () => undefined): Promise<Receiver> {
  const cert = testCertificate();
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    origin: '',
    port: 0,
    caFile: cert.caFile,
    requests: [],
    script,
    waitForRequests(count, timeoutMs = 30_000) {
      if (receiver.requests.length >= count) return Promise.resolve(receiver.requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${receiver.requests.length} of ${count} requests in time`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(receiver.requests);
          },
        });
      });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server: Server = createServer(
    { cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile), keepAliveTimeout: 30_000 },
    (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const recorded: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: Object.fromEntries(
            Object.entries(req.headers).map(([k, v]): [string, string] => [
              k,
              Array.isArray(v) ? v.join(', ') : (v ?? ''),
            ]),
          ),
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        const index = receiver.requests.length;
        receiver.requests.push(recorded);
        for (const waiter of waiters.filter((w) => receiver.requests.length >= w.count)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        const answer = receiver.script(recorded, index) ?? {};
        const respond = () => {
          if (answer.close) {
            req.socket.destroy();
            return;
          }
          if (answer.redirectTo) {
            res.writeHead(302, { location: answer.redirectTo });
            res.end();
            return;
          }
          res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
          res.end(answer.body ?? 'ok');
        };
        if (answer.delayMs) setTimeout(respond, answer.delayMs);
        else respond();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.origin = `https://127.0.0.1:${receiver.port}`;
  return receiver;
}

/** A receiver that accepts TCP connections and never says a word: no TLS handshake, no answer. */
export interface SilentReceiver {
  /** https://127.0.0.1:PORT */
  origin: string;
  /** Connections accepted so far, and when (performance.now()). */
  accepted: number;
  acceptedAt: number[];
  /** Connections open now, and the most open at once. */
  open: number;
  maxOpen: number;
  close(): Promise<void>;
}

export async function startSilentReceiver(): Promise<SilentReceiver> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    silent.accepted += 1;
    silent.acceptedAt.push(performance.now());
    silent.open = sockets.size;
    silent.maxOpen = Math.max(silent.maxOpen, sockets.size);
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      silent.open = sockets.size;
    });
  });
  const silent: SilentReceiver = {
    origin: '',
    accepted: 0,
    acceptedAt: [],
    open: 0,
    maxOpen: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  silent.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return silent;
}
