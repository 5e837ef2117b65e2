// GET /metrics on METRICS_PORT: a small HTTP server of its own, apart from the API port, so that the
// metrics are never public by accident and a worker process (which has no API port) serves them too.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsRegistry } from './metrics.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

interface Logger {
  warn(details: object, message: string): void;
}

export async function startMetricsServer(options: {
  host: string;
  port: number;
  logger?: Logger;
}): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('Not found: the metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('Use GET\n');
      return;
    }
    metricsRegistry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': metricsRegistry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        // A collector that cannot read (the database away) must not end the process.
        options.logger?.warn({ err: (err as Error).message }, 'metrics could not be collected');
        response.writeHead(503, { 'content-type': 'text/plain' }).end('Metrics are not available now\n');
      },
    );
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(new Error(`METRICS_PORT: cannot listen on ${options.host}:${options.port}: ${err.message}`)),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
