// HTTP load with autocannon, after a warm-up that is not counted (the JIT and the caches settle
// first), with the CPU use of each process of interest over the counted part.
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { type CpuSources, cpuMeter } from './system.js';

export interface LoadOptions {
  /** One URL, or several whose loads run side by side and add up (one per API process). */
  urls: string[];
  method?: 'GET' | 'POST' | 'PUT';
  body?: string;
  headers?: Record<string, string>;
  /** Headers made afresh for every request (a new Idempotency-Key each time), next to `headers`. */
  freshHeaders?: () => Record<string, string>;
  /**
   * Requests that take these paths (with their own headers, next to `headers`) in turn, in place
   * of the URL's own path: writes spread over several records.
   */
  rotation?: { path: string; headers: Record<string, string> }[];
  /** A body made afresh for every request (an event with a new id each time), in place of `body`. */
  freshBody?: () => string;
  /**
   * A steady load: this many requests a second in all (per URL, shared), instead of as fast as
   * possible. Autocannon's own rate sends each second's requests in a burst at its start, so
   * a steady load is paced here instead (see paced()).
   */
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
  const rotation = options.rotation;
  let turn = 0;
  return autocannon({
    url,
    connections,
    duration: durationS,
    method: options.method ?? 'GET',
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.freshHeaders || options.freshBody || rotation
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => {
                const next = rotation?.[turn++ % rotation.length];
                return {
                  ...request,
                  ...(next ? { path: next.path } : {}),
                  headers: { ...request.headers, ...next?.headers, ...options.freshHeaders?.() },
                  ...(options.freshBody ? { body: options.freshBody() } : {}),
                };
              },
            },
          ],
        }
      : {}),
  });
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.rate !== undefined) return paced(options, options.rate);
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

/**
 * An open-loop load, as network servers and gateways send: request i is due at start + i / rate and
 * sent then, whether or not the earlier ones were answered, over at most `connections` connections.
 * Latency counts from when a request was due, so a stall is charged to every request it delays.
 */
async function paced(options: LoadOptions, rate: number): Promise<LoadResult> {
  const pools = options.urls.map(
    (url) => new Pool(new URL(url).origin, { connections: options.connections }),
  );
  const perUrl = rate / options.urls.length;
  const once = async (durationS: number, latencies: number[] | undefined) => {
    const failures: string[] = [];
    await Promise.all(
      options.urls.map(async (url, u) => {
        const { pathname, search } = new URL(url);
        const pool = pools[u]!;
        const total = Math.round(perUrl * durationS);
        const start = performance.now();
        const inFlight: Promise<void>[] = [];
        for (let i = 0; i < total; i++) {
          const due = start + (i * 1000) / perUrl;
          const wait = due - performance.now();
          if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
          const body = options.freshBody ? options.freshBody() : options.body;
          inFlight.push(
            pool
              .request({
                path: `${pathname}${search}`,
                method: options.method ?? 'GET',
                headers: { ...options.headers, ...options.freshHeaders?.() },
                ...(body === undefined ? {} : { body }),
              })
              .then(async (res) => {
                await res.body.dump();
                if (res.statusCode >= 300) failures.push(`${url}: HTTP ${res.statusCode}`);
                latencies?.push(performance.now() - due);
              })
              .catch((err: Error) => {
                failures.push(`${url}: ${err.message}`);
              }),
          );
        }
        await Promise.all(inFlight);
      }),
    );
    if (failures.length > 0) throw new Error(`${failures.length} failed requests, e.g. ${failures[0]}`);
  };
  try {
    if (options.warmupS > 0) await once(options.warmupS, undefined);
    const cpu = cpuMeter(options.cpu ?? {});
    const latencies: number[] = [];
    const started = performance.now();
    await once(options.durationS, latencies);
    const used = cpu();
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
    return { rps: latencies.length / seconds, p99Ms: Math.round(p99 * 10) / 10, cpu: used };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}
