// HTTP load with autocannon, after a warm-up that is not counted (the JIT and the caches settle
// first), with the CPU use of each process of interest over the counted part.
import autocannon from 'autocannon';
import { type CpuSources, cpuMeter } from './system.js';

export interface LoadOptions {
  /** One URL, or several whose loads run side by side and add up (one per API process). */
  urls: string[];
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** Headers made afresh for every request (a new Idempotency-Key each time), next to `headers`. */
  freshHeaders?: () => Record<string, string>;
  /** A body made afresh for every request (an event with a new id each time), in place of `body`. */
  freshBody?: () => string;
  /** A steady load: this many requests a second in all (per URL, shared), instead of as fast as possible. */
  rate?: number;
  connections: number;
  durationS: number;
  warmupS: number;
  cpu?: CpuSources;
}

export interface LoadResult {
  rps: number;
  p99Ms: number;
  /** CPU use over the counted part, % of one core, per source. */
  cpu: Record<string, number>;
}

function run(url: string, options: LoadOptions, connections: number, durationS: number) {
  return autocannon({
    url,
    connections,
    duration: durationS,
    method: options.method ?? 'GET',
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.rate === undefined ? {} : { overallRate: options.rate / options.urls.length }),
    ...(options.freshHeaders || options.freshBody
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                headers: { ...request.headers, ...options.freshHeaders?.() },
                ...(options.freshBody ? { body: options.freshBody() } : {}),
              }),
            },
          ],
        }
      : {}),
  });
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const perUrl = Math.max(1, Math.round(options.connections / options.urls.length));
  if (options.warmupS > 0)
    await Promise.all(options.urls.map((url) => run(url, options, perUrl, options.warmupS)));
  const cpu = cpuMeter(options.cpu ?? {});
  const results = await Promise.all(options.urls.map((url) => run(url, options, perUrl, options.durationS)));
  const used = cpu();
  for (const [i, result] of results.entries()) {
    if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
      throw new Error(
        `${options.urls[i]}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
      );
    }
  }
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  return {
    rps: total / options.durationS,
    p99Ms: Math.max(...results.map((r) => r.latency.p99)),
    cpu: used,
  };
}
