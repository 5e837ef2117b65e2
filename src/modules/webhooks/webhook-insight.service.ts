// An endpoint's insight: its deliveries by outcome over a window, success rate and attempt durations.
import type { Scope } from '../../platform/db/scope.js';
import { notFound } from '../../platform/errors.js';
import { type EndpointRow, findEndpoint } from './webhook.repository.js';
import type { WebhookDeps } from './webhook.service.js';
import { attemptDurationPercentiles, countOutcomes, finishedCounts } from './webhook-insight.repository.js';

const DAY_MS = 86_400_000;

const successRate = (succeeded: number, failed: number) =>
  succeeded + failed === 0 ? null : succeeded / (succeeded + failed);

/** Deliveries of an endpoint that finished in the last 24 hours; success_rate null without any. */
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
    deps.clock.now() - DAY_MS,
  );
  return (endpointId) => {
    const { succeeded, failed } = day.get(endpointId) ?? { succeeded: 0, failed: 0 };
    return { success_rate: successRate(succeeded, failed), delivered: succeeded, failed };
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

export const STATS_WINDOWS = { '24h': DAY_MS, '7d': 7 * DAY_MS } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;

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

/** An endpoint's outcomes over a window, from its delivery log and attempts. */
export async function webhookEndpointStats(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  window: StatsWindow = '24h',
): Promise<EndpointStats> {
  const endpoint = await findEndpoint(scope, id);
  if (!endpoint) throw notFound();
  const now = deps.clock.now();
  const from = now - STATS_WINDOWS[window];
  const outcomes = await countOutcomes(scope, endpoint.id, from);
  const durations = await attemptDurationPercentiles(scope, endpoint.id, from);
  const rounded = (ms: number | null) => (ms === null ? null : Math.round(ms));
  return {
    window,
    from: iso(from),
    until: iso(now),
    succeeded: outcomes.succeeded,
    failed: outcomes.failed,
    pending: outcomes.queued,
    held: outcomes.held,
    success_rate: successRate(outcomes.succeeded, outcomes.failed),
    duration_ms: { p50: rounded(durations.p50), p95: rounded(durations.p95) },
    last_success_at: outcomes.lastSuccessAt === null ? null : iso(outcomes.lastSuccessAt),
    last_failure_at: outcomes.lastFailureAt === null ? null : iso(outcomes.lastFailureAt),
  };
}
