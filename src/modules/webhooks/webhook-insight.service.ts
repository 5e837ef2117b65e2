// An endpoint's insight: its deliveries by outcome over a window of whole hours, success rate and
// attempt durations, read from its hourly roll-up (delivery-hours.ts); what waits now, from its queue.
import type { Scope } from '../../platform/db/scope.js';
import { notFound } from '../../platform/errors.js';
import { HOUR_MS, histogramQuantile, hourStart } from './delivery-hours.js';
import { type EndpointRow, findEndpoint } from './webhook.repository.js';
import type { WebhookDeps } from './webhook.service.js';
import { finishedCounts, hourTotals, lastEndingsInLog, waitingNow } from './webhook-insight.repository.js';

export const STATS_WINDOWS = { '24h': 24, '7d': 168 } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;

/** The start of a window of whole hours: the current hour and the hours before it, as many as it has. */
export function windowStart(now: number, window: StatsWindow): number {
  return hourStart(now) - (STATS_WINDOWS[window] - 1) * HOUR_MS;
}

const successRate = (succeeded: number, failed: number) =>
  succeeded + failed === 0 ? null : succeeded / (succeeded + failed);

/** Deliveries of an endpoint that finished in the last 24 hours (whole hours); success_rate null without any. */
export interface EndpointDayStats {
  success_rate: number | null;
  delivered: number;
  failed: number;
}

/** The last day's outcomes of these endpoints, by endpoint id: one grouped statement for them all. */
export async function dayStatsOf(
  deps: Pick<WebhookDeps, 'clock'>,
  scope: Scope,
  rows: EndpointRow[],
): Promise<(endpointId: number) => EndpointDayStats> {
  const day = await finishedCounts(
    scope,
    rows.map((r) => r.id),
    windowStart(deps.clock.now(), '24h'),
  );
  return (endpointId) => {
    const { succeeded, failed } = day.get(endpointId) ?? { succeeded: 0, failed: 0 };
    return { success_rate: successRate(succeeded, failed), delivered: succeeded, failed };
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

export interface EndpointStats {
  window: StatsWindow;
  from: string;
  until: string;
  succeeded: number;
  failed: number;
  /** Queued now: pending or retrying. */
  pending: number;
  held: number;
  success_rate: number | null;
  duration_ms: { p50: number | null; p95: number | null };
  last_success_at: string | null;
  last_failure_at: string | null;
}

/**
 * An endpoint's outcomes over a window of whole hours (the current one included), from its roll-up:
 * counts, and the percentiles of the attempts' durations interpolated within the histogram's
 * buckets. The last success and failure: the latest in the roll-up's 8 days or in the log.
 */
export async function webhookEndpointStats(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  window: StatsWindow = '24h',
): Promise<EndpointStats> {
  const endpoint = await findEndpoint(scope, id);
  if (!endpoint) throw notFound();
  const now = deps.clock.now();
  const from = windowStart(now, window);
  const hours = await hourTotals(scope, endpoint.id, from);
  const waiting = await waitingNow(scope, endpoint.id);
  const log = await lastEndingsInLog(scope, endpoint.id);
  const percentile = (p: number) => {
    const ms = histogramQuantile(hours.durations, hours.durationMaxMs, p);
    return ms === null ? null : Math.round(ms);
  };
  const latest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
  const lastSuccessAt = latest(hours.lastSuccessAt, log.lastSuccessAt);
  const lastFailureAt = latest(hours.lastFailureAt, log.lastFailureAt);
  return {
    window,
    from: iso(from),
    until: iso(now),
    succeeded: hours.succeeded,
    failed: hours.failed,
    pending: waiting.queued,
    held: waiting.held,
    success_rate: successRate(hours.succeeded, hours.failed),
    duration_ms: { p50: percentile(0.5), p95: percentile(0.95) },
    last_success_at: lastSuccessAt === null ? null : iso(lastSuccessAt),
    last_failure_at: lastFailureAt === null ? null : iso(lastFailureAt),
  };
}
