// Metrics for Prometheus, in one registry per process. The modules count what happens (a counter's
// inc is a map lookup, so they count whether or not METRICS_PORT is set); metrics-server.ts serves
// the registry on METRICS_PORT. Names and labels are the operators' contract: README lists them.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** API requests by method, route pattern (never the raw URL) and status, with their durations. */
export const httpRequestDuration = new Histogram({
  name: 'furrow_http_request_duration_seconds',
  help: 'API requests by method, route pattern and status code: time from request to response sent',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Webhook attempts recorded, by the delivery's status after the attempt. */
export const webhookDeliveries = new Counter({
  name: 'furrow_webhook_deliveries_total',
  help: 'Webhook delivery attempts recorded, by outcome: succeeded, retrying (failed, another attempt is scheduled), failed (the last attempt failed), held (the endpoint paused meanwhile)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** From the event's occurred_at to the receiver's 2xx, retries included. */
export const webhookDeliveryLatency = new Histogram({
  name: 'furrow_webhook_delivery_latency_seconds',
  help: "Seconds from an event's occurred_at to the receiver's 2xx answer, retries included",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21_600, 86_400, 172_800],
  registers: [metricsRegistry],
});

/** List and detail reads answered from the read cache (hit) or from the database (miss), SQLite only. */
export const readCacheAnswers = new Counter({
  name: 'furrow_read_cache_answers_total',
  help: 'List and detail reads by how they were answered: hit (from the read cache, unchanged since) or miss (from the database); SQLite only',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const readingsIngested = new Counter({
  name: 'furrow_iot_readings_ingested_total',
  help: 'Sensor readings stored (API, LoRaWAN network servers and MQTT)',
  registers: [metricsRegistry],
});

export const alertsRaised = new Counter({
  name: 'furrow_iot_alerts_raised_total',
  help: 'Alerts raised by threshold rules, by severity',
  labelNames: ['severity'] as const,
  registers: [metricsRegistry],
});

/** Read on scrape: `read` answers the value, kept `cacheMs` so frequent scrapes cost one query. */
export function registerCachedGauge(options: {
  name: string;
  help: string;
  cacheMs: number;
  now: () => number;
  read: () => Promise<number>;
}): Gauge {
  metricsRegistry.removeSingleMetric(options.name);
  let cached: { value: number; at: number } | undefined;
  return new Gauge({
    name: options.name,
    help: options.help,
    registers: [metricsRegistry],
    async collect() {
      const now = options.now();
      if (cached === undefined || now - cached.at >= options.cacheMs) {
        cached = { value: await options.read(), at: now };
      }
      this.set(cached.value);
    },
  });
}
