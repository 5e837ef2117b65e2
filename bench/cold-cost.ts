// What this machine charges for work done now and then, not back to back: a bare Node HTTP server
// (a JSON body parsed and answered, nothing of Furrow) sent requests at steady rates, and its CPU
// per request at each. On a quiet, fast machine the figure hardly moves with the rate; where it
// grows as the rate falls, every event of Furrow's steady-rate figures (bench/event-cost.ts, the
// event-to-receipt latency) pays the same, many times over: read those figures against this one.
//
//   node --import tsx bench/cold-cost.ts [rates (default 20,100,1000)] [seconds per rate (default 10)]
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { request } from 'undici';
import { cpuSeconds } from './lib/system.js';

function serve(): void {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}') as { n?: number };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, n: parsed.n ?? null }));
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.(typeof address === 'object' && address ? address.port : 0);
  });
}

async function measure(): Promise<void> {
  const rates = (process.argv[2] ?? '20,100,1000').split(',').map(Number);
  const seconds = Number(process.argv[3] ?? 10);
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], {
    execArgv: ['--import', 'tsx'],
  });
  try {
    const port = await new Promise<number>((resolve) => child.once('message', (p) => resolve(p as number)));
    const post = async (n: number) => {
      const res = await request(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n }),
      });
      await res.body.text();
    };
    for (let n = 0; n < 500; n++) await post(n);
    for (const rate of rates) {
      const count = Math.round(rate * seconds);
      const before = cpuSeconds(child.pid!);
      const started = performance.now();
      const sent: Promise<void>[] = [];
      for (let n = 0; n < count; n++) {
        const wait = started + (n * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        sent.push(post(n));
      }
      await Promise.all(sent);
      const perRequest = ((cpuSeconds(child.pid!) - before) / count) * 1e6;
      process.stdout.write(
        `${rate} requests/s: ${perRequest.toFixed(0)} µs of the server's CPU per request\n`,
      );
    }
  } finally {
    child.kill();
  }
}

if (process.argv.includes('--serve')) serve();
else await measure();
