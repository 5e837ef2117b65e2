// A tenant set up to make webhook traffic as farms do: endpoints subscribed to `iot.alert.raised`,
// a sensor with a rule `temperature gt 30`, and readings that cross that threshold on purpose (20,
// 40, 20, 40, …: every 40 raises one alert, hence one event, hence one delivery per endpoint).
import type { Api } from './furrow.js';
import { ok } from './furrow.js';
import type { BenchReceiver, ReceiverStats } from './receiver.js';
import { analyzeLikeAutovacuum } from './seed.js';

export const DEVICE = 'bench-probe';

/** Environment of every Furrow process of a delivery run: the local receiver is allowed and trusted. */
export function receiverEnv(receiver: BenchReceiver): Record<string, string> {
  return { WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1', WEBHOOK_CA_FILE: receiver.caFile };
}

export async function addEndpoints(api: Api, ports: readonly number[]): Promise<void> {
  for (const port of ports) {
    await ok(
      api.call('POST', '/api/webhooks', {
        url: `https://127.0.0.1:${port}/hook`,
        events: ['iot.alert.raised'],
        description: `bench receiver :${port}`,
      }),
    );
  }
}

/**
 * Sensors with a rule `temperature gt 30` each: DEVICE, then DEVICE-2 … DEVICE-n. Readings of one
 * sensor are compared in the order the server stamps them; requests that overlap may commit in
 * another, and a reading older than its rule's last raises nothing, so a paced load spreads its
 * requests over several sensors.
 */
export async function addAlertingDevice(api: Api, devices = 1): Promise<void> {
  for (let n = 1; n <= devices; n++) {
    const code = deviceCode(n - 1);
    const created = await ok(api.call('POST', '/api/iot/devices', { code, name: `Bench probe ${n}` }));
    const deviceId = (created as { id: number }[])[0]?.id;
    if (deviceId === undefined) throw new Error(`device not created: ${JSON.stringify(created)}`);
    await ok(
      api.call('POST', '/api/iot/rules', {
        metric: 'temperature',
        operator: 'gt',
        threshold: 30,
        device_id: deviceId,
      }),
    );
  }
}

/** The code of the i-th sensor of addAlertingDevice (from 0). */
export function deviceCode(i: number): string {
  return i === 0 ? DEVICE : `${DEVICE}-${i + 1}`;
}

/** The readings of `alerts` crossings (two readings each) of one sensor. */
export function crossings(alerts: number, device = DEVICE): string {
  const readings = [];
  for (let i = 0; i < alerts; i++) {
    readings.push({ device_code: device, metric: 'temperature', value: 20 });
    readings.push({ device_code: device, metric: 'temperature', value: 40 });
  }
  return JSON.stringify({ readings });
}

/** Raises `alerts` alerts, 500 per request; each is one event for every subscribed endpoint. */
export async function raiseAlerts(api: Api, alerts: number): Promise<void> {
  for (let done = 0; done < alerts; done += 500) {
    const n = Math.min(500, alerts - done);
    const answer = await ok(api.call('POST', '/api/iot/readings', JSON.parse(crossings(n))));
    const raised = (answer.data.results as { alert_ids?: number[] }[]).reduce(
      (sum, r) => sum + (r.alert_ids?.length ?? 0),
      0,
    );
    if (raised !== n)
      throw new Error(`${n} alerts expected, ${raised} raised: ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

/** Messages per second that arrived within [from, to) (receiver clock, epoch ms). */
export function rateBetween(stats: ReceiverStats, from: number, to: number): number {
  let n = 0;
  for (const at of stats.received) if (at >= from && at < to) n += 1;
  return n / ((to - from) / 1000);
}

/**
 * Waits for the first message, lets `warmupS` pass, and counts what arrives over the next
 * `durationS`. Fails if the backlog ran out before the window closed (the rate would be too low).
 */
export async function measureWindow(
  receiver: BenchReceiver,
  options: { warmupS: number; durationS: number; backlog: number; timeoutMs?: number },
): Promise<{ rate: number; stats: ReceiverStats }> {
  const first = (await receiver.waitFor(1, options.timeoutMs ?? 60_000)).received[0]!;
  const from = first + options.warmupS * 1000;
  const to = from + options.durationS * 1000;
  const wait = to - (performance.timeOrigin + performance.now());
  if (wait > 0) await new Promise((r) => setTimeout(r, wait + 50));
  const stats = await receiver.stats();
  const last = Math.max(...stats.received);
  if (stats.received.length >= options.backlog && last < to) {
    throw new Error(
      `the backlog of ${options.backlog} messages ran out before the measurement ended; raise it`,
    );
  }
  return { rate: rateBetween(stats, from, to), stats };
}

/**
 * PostgreSQL: planner statistics after a backlog was made in one burst, as autovacuum gathers them
 * within its naptime (a minute). Until then the planner takes the few queued rows it last saw for
 * the truth and the worker's claim sorts the whole backlog each time (see bench/README.md).
 */
export async function analyzeBacklog(databaseUrl: string): Promise<void> {
  const { bulkWorkTimeouts, openDatabase } = await import('../../src/platform/db/database.js');
  const handle = openDatabase(databaseUrl, { maxConnections: 1, timeouts: bulkWorkTimeouts() });
  try {
    await analyzeLikeAutovacuum(handle.db);
  } finally {
    await handle.close();
  }
}
