// The bench's side of the receiver process (receiver-process.ts), and the ceiling of the delivery
// figures: raw undici POSTs of a signed message to the same receiver, with the same concurrency.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { testCertificate } from '../../test/support/webhook-receiver.js';

export interface ReceiverStats {
  /** Receipt times (epoch ms, sub-millisecond precision), in order. */
  received: number[];
  /** For each message, ms from its event's occurred_at to its receipt. */
  latencies: number[];
}

export interface BenchReceiver {
  ports: number[];
  deadPort: number;
  caFile: string;
  pid: number;
  reset(): Promise<void>;
  delay(ms: number): Promise<void>;
  stats(): Promise<ReceiverStats>;
  /** The first message received since the last reset: its body and the headers its sender set. */
  sample(): Promise<{ body: string; headers: Record<string, string> }>;
  /** Resolves once `count` messages have arrived (polling), or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<ReceiverStats>;
  close(): void;
}

export async function startReceiver(ports: number): Promise<BenchReceiver> {
  const cert = testCertificate();
  const child: ChildProcess = fork(join(import.meta.dirname, 'receiver-process.ts'), {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      RECEIVER_PORTS: String(ports),
      RECEIVER_CERT: cert.certFile,
      RECEIVER_KEY: cert.keyFile,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(message: { cmd: string; ms?: number }) =>
    new Promise<T>((resolve) => {
      const onMessage = (reply: { cmd: string } & T) => {
        if (reply.cmd !== message.cmd) return;
        child.off('message', onMessage);
        resolve(reply);
      };
      child.on('message', onMessage);
      child.send(message);
    });
  const ready = await new Promise<{ ports: number[]; deadPort: number }>((resolve, reject) => {
    child.once('message', (m: any) => resolve(m));
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
  });
  const stats = async (): Promise<ReceiverStats> => {
    const reply = await ask<{ received: number[]; latencies: number[] }>({ cmd: 'stats' });
    return { received: reply.received, latencies: reply.latencies };
  };
  return {
    ports: ready.ports,
    deadPort: ready.deadPort,
    caFile: cert.caFile,
    pid: child.pid!,
    reset: () => ask({ cmd: 'reset' }),
    delay: (ms) => ask({ cmd: 'delay', ms }),
    stats,
    async sample() {
      const reply = await ask<{ sample?: { body: string; headers: Record<string, string> } }>({
        cmd: 'sample',
      });
      if (!reply.sample) throw new Error('the receiver has received nothing yet');
      return reply.sample;
    },
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = await stats();
        if (current.received.length >= count) return current;
        if (Date.now() > deadline) {
          throw new Error(`receiver got ${current.received.length} of ${count} messages in ${timeoutMs} ms`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    close: () => child.kill(),
  };
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * The ceiling: `concurrency` loops POSTing the same signed body and headers to the receiver's ports in
 * turn, through one undici agent that trusts the receiver, for `durationS`. Answers messages/s.
 */
export async function rawPosts(
  receiver: BenchReceiver,
  message: { body: string; headers: Record<string, string> },
  options: { concurrency: number; durationS: number },
): Promise<number> {
  const agent = new Agent({
    connect: { ca: readFileSync(receiver.caFile, 'utf8') },
    keepAliveTimeout: 10_000,
  });
  const urls = receiver.ports.map((port) => `https://127.0.0.1:${port}/hook`);
  let sent = 0;
  let next = 0;
  const until = performance.now() + options.durationS * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < until) {
        const url = urls[next++ % urls.length]!;
        const res = await request(url, {
          method: 'POST',
          headers: message.headers,
          body: message.body,
          dispatcher: agent,
        });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
        sent += 1;
      }
    }),
  );
  await agent.close();
  return sent / options.durationS;
}
