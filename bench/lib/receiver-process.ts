// The webhook receiver of the delivery figures, in a process of its own: HTTPS on several ports
// (each endpoint its own origin, as on the internet), answering 200 at once or after a set delay, and
// one "dead" port that takes the TLS connection and never answers. It notes when each message
// arrived, and how long after its event (`occurred_at`).
// Driven over IPC by receiver.ts: {cmd: 'reset' | 'stats' | 'sample' | 'delay', ms?}.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

const healthyPorts = Number(process.env.RECEIVER_PORTS ?? 10);
const tls = { cert: readFileSync(process.env.RECEIVER_CERT!), key: readFileSync(process.env.RECEIVER_KEY!) };

let delayMs = 0;
let received: number[] = [];
let latencies: number[] = [];
/** The last message as received, for the ceiling to send the very same bytes. */
let sample: { body: string; headers: Record<string, string> } | undefined;
const OCCURRED_AT = /"occurred_at":"([^"]+)"/;

const now = () => performance.timeOrigin + performance.now();

/** The headers a sender chose (those of the HTTP connection itself left out). */
function sentHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const skip = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name, value]) => !skip.has(name) && typeof value === 'string')
      .map(([name, value]) => [name, value as string]),
  );
}

function healthy(): Server {
  return createServer({ ...tls, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      received.push(at);
      const body = Buffer.concat(chunks).toString('utf8');
      if (!sample) sample = { body, headers: sentHeaders(req.headers) };
      const occurred = OCCURRED_AT.exec(body)?.[1];
      if (occurred) latencies.push(at - Date.parse(occurred));
      const answer = () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

const ports: number[] = [];
for (let i = 0; i < healthyPorts; i++) {
  ports.push(await listen(healthy()));
}
// Takes the request and never answers: the sender's timeout ends every attempt.
const dead = createServer({ ...tls, keepAliveTimeout: 600_000, requestTimeout: 0 }, () => {});
const deadPort = await listen(dead);

process.on('message', (message: { cmd: string; ms?: number }) => {
  if (message.cmd === 'reset') {
    received = [];
    latencies = [];
    sample = undefined;
    process.send!({ cmd: 'reset' });
  } else if (message.cmd === 'delay') {
    delayMs = message.ms ?? 0;
    process.send!({ cmd: 'delay' });
  } else if (message.cmd === 'sample') {
    process.send!({ cmd: 'sample', sample });
  } else if (message.cmd === 'stats') {
    process.send!({ cmd: 'stats', received, latencies });
  }
});
process.on('disconnect', () => process.exit(0));
process.send!({ cmd: 'ready', ports, deadPort });
