// What an owner sees of an endpoint and chooses for it, against the real HTTPS receiver: the log's
// filters, the stats of a window of whole hours from the hourly roll-up (more deliveries than the log
// keeps, percentiles from its histogram), the list's last day, and per-kind data filters that keep
// events from making deliveries at all.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { client } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken } from '../../../test/support/factories.js';
import { DELAYS, webhookFixture } from '../../../test/support/webhook-fixture.js';
import { DURATION_BOUNDS_MS, durationBucket, HOUR_MS, hourStart } from './delivery-hours.js';
import { LOG_SIZE } from './delivery-log.js';

const DAY_MS = 86_400_000;

/**
 * Asserts that a percentile read from the histogram lies within the buckets of the real durations'
 * continuous percentile (percentile_cont): between the lower bound of the bucket of the rank's lower
 * neighbour and the upper bound of its upper neighbour's.
 */
function assertWithinBuckets(estimate: number, sorted: number[], p: number): void {
  const rank = p * (sorted.length - 1);
  const low = durationBucket(sorted[Math.floor(rank)]!);
  const high = durationBucket(sorted[Math.ceil(rank)]!);
  const lower = low === 0 ? 0 : DURATION_BOUNDS_MS[low - 1]!;
  const upper = DURATION_BOUNDS_MS[high] ?? sorted.at(-1)!;
  assert.ok(
    estimate >= lower && estimate <= upper,
    `p${p * 100} ${estimate} ms is not within ${lower}–${upper} ms (durations ${sorted.join(', ')})`,
  );
}

forEachDialect('webhook endpoints: log filters, stats, data filters', (database) => {
  const f = webhookFixture(database);

  async function runSchedule(): Promise<void> {
    await f.worker.drain();
    for (const delay of DELAYS) {
      f.t.clock.advance(delay);
      await f.worker.drain();
    }
  }

  /** An endpoint that answers 200 to data with ok: true and 500 to the rest, slowly for some. */
  async function mixedEndpoint() {
    return f.endpoint((req) => {
      const { data } = JSON.parse(req.body);
      return { status: data.ok ? 200 : 500, delayMs: data.slow ? 60 : 0 };
    });
  }

  it('filters the log by status, kind and creation time; 422 for bad values', async () => {
    const ep = await mixedEndpoint();
    const [harvest] = await f.emit('harvest.batch.created', { ok: true });
    f.t.clock.advance(60_000);
    const middle = f.t.clock.now();
    const [alert] = await f.emit('iot.alert.raised', { ok: false });
    f.t.clock.advance(60_000);
    const [offline] = await f.emit('iot.device.offline', { ok: true });
    await f.worker.drain();
    const ids = async (query: string) => {
      const res = await f.owner.get(`/api/webhooks/${ep.id}/deliveries?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body.map((d: { id: string }) => d.id);
    };
    assert.deepEqual(await ids(''), [offline, alert, harvest]);
    assert.deepEqual(await ids('status=succeeded'), [offline, harvest]);
    assert.deepEqual(await ids('status=retrying'), [alert]);
    assert.deepEqual(await ids('event_type=iot.alert.raised'), [alert]);
    assert.deepEqual(await ids(`since=${new Date(middle).toISOString()}`), [offline, alert]);
    assert.deepEqual(await ids(`until=${encodeURIComponent(new Date(middle).toISOString())}`), [
      alert,
      harvest,
    ]);
    assert.deepEqual(
      await ids(
        `status=succeeded&since=${new Date(middle).toISOString()}&until=${new Date(middle + 120_000).toISOString()}`,
      ),
      [offline],
    );
    for (const [query, field] of [
      ['status=lost', 'status'],
      ['since=last-week', 'since'],
      [`since=${new Date(middle).toISOString()}&until=${new Date(middle - 1).toISOString()}`, 'until'],
    ]) {
      const res = await f.owner.get(`/api/webhooks/${ep.id}/deliveries?${query}`);
      assert.equal(res.status, 422, query);
      assert.equal(res.body[0].meta.errors[0].field, field, res.text);
    }
  });

  it('counts outcomes over 24h and 7d, with the percentiles of the attempts and the list’s last day', async () => {
    const ep = await mixedEndpoint();
    const idle = await f.endpoint(() => undefined, ['iot.device.online']);
    const empty = await f.owner.get(`/api/webhooks/${ep.id}/stats`);
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.data.success_rate, null);
    assert.deepEqual(empty.body.data.duration_ms, { p50: null, p95: null });

    for (const data of [{ ok: true }, { ok: true, slow: true }, { ok: true }, { ok: false }])
      await f.emit('harvest.batch.created', data);
    await runSchedule();
    assert.equal((await f.owner.post(`/api/webhooks/${ep.id}/pause`)).status, 200);
    await f.emit('harvest.batch.created', { ok: true });

    const stats = (await f.owner.get(`/api/webhooks/${ep.id}/stats?window=24h`)).body.data;
    assert.equal(stats.window, '24h');
    assert.equal(stats.succeeded, 3);
    assert.equal(stats.failed, 1);
    assert.equal(stats.pending, 0);
    assert.equal(stats.held, 1);
    assert.equal(stats.success_rate, 0.75);
    const log = await f.deliveries(ep.id);
    const durations = log
      .flatMap((d: { attempts: { duration_ms: number }[] }) => d.attempts.map((a) => a.duration_ms))
      .sort((a: number, b: number) => a - b);
    assert.equal(durations.length, 3 + 7);
    assertWithinBuckets(stats.duration_ms.p50, durations, 0.5);
    assertWithinBuckets(stats.duration_ms.p95, durations, 0.95);
    assert.ok(Number.isInteger(stats.duration_ms.p50) && Number.isInteger(stats.duration_ms.p95));
    assert.ok(stats.duration_ms.p95 > stats.duration_ms.p50, 'the slow answer is in the 95th percentile');
    const failedAt = log.find((d: { status: string }) => d.status === 'failed').attempts.at(-1).started_at;
    assert.ok(stats.last_failure_at >= failedAt);
    assert.ok(stats.last_success_at < stats.last_failure_at, 'the failure ended after the retries');

    const list = (await f.owner.get('/api/webhooks')).body;
    const day = (id: string) => list.find((e: { id: string }) => e.id === id).stats_24h;
    assert.deepEqual(day(ep.id), { success_rate: 0.75, delivered: 3, failed: 1 });
    assert.deepEqual(day(idle.id), { success_rate: null, delivered: 0, failed: 0 });
    assert.equal((await f.getEndpoint(ep.id)).stats_24h, undefined, 'on the list only');

    f.t.clock.advance(2 * 86_400_000);
    // Two days on, the owner signs in again.
    const owner = client(f.t.url, await loginToken(f.t.url, f.farm.code, f.farm.owner));
    const later = (await owner.get(`/api/webhooks/${ep.id}/stats`)).body.data;
    assert.equal(later.window, '24h');
    assert.deepEqual([later.succeeded, later.failed, later.held, later.success_rate], [0, 0, 1, null]);
    assert.deepEqual(later.duration_ms, { p50: null, p95: null });
    assert.equal(later.last_success_at, stats.last_success_at);
    const week = (await owner.get(`/api/webhooks/${ep.id}/stats?window=7d`)).body.data;
    assert.deepEqual([week.succeeded, week.failed, week.success_rate], [3, 1, 0.75]);
    assert.deepEqual(week.duration_ms, stats.duration_ms);
    assert.equal((await owner.get(`/api/webhooks/${ep.id}/stats?window=1h`)).status, 422);
  });

  /** The endpoint's roll-up rows, oldest hour first. */
  async function hoursOf(epId: string) {
    const rows = await f.t.database.db
      .selectFrom('webhook_delivery_hours as h')
      .innerJoin('webhook_endpoints as e', (join) =>
        join.onRef('e.tenant_id', '=', 'h.tenant_id').onRef('e.id', '=', 'h.endpoint_id'),
      )
      .selectAll('h')
      .where('e.public_id', '=', epId)
      .orderBy('h.hour_start')
      .execute();
    return rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : Number(v)])),
    );
  }
  const total = (rows: Record<string, number | null>[], column: string) =>
    rows.reduce((sum, r) => sum + (r[column] ?? 0), 0);

  it('counts every delivery of a busy endpoint, not only the 50 of its log; a recovered one when it ends again', async () => {
    let healed = false;
    const ep = await f.endpoint((req) => ({ status: JSON.parse(req.body).data.ok || healed ? 200 : 500 }));
    const since = f.t.clock.now();
    // Rounds of five successes and a failure (seven attempts), each round ended before the next
    // starts: never five failures in a row, which would pause the endpoint.
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 6; i++) await f.emit('harvest.batch.created', { ok: i < 5, round, i });
      await runSchedule();
    }
    assert.equal((await f.deliveries(ep.id)).length, LOG_SIZE, 'the log keeps 50');
    for (const window of ['24h', '7d']) {
      const stats = (await f.owner.get(`/api/webhooks/${ep.id}/stats?window=${window}`)).body.data;
      assert.deepEqual(
        [stats.succeeded, stats.failed, stats.pending, stats.held, stats.success_rate],
        [100, 20, 0, 0, 100 / 120],
        window,
      );
    }
    const list = (await f.owner.get('/api/webhooks')).body;
    assert.deepEqual(list.find((e: { id: string }) => e.id === ep.id).stats_24h, {
      success_rate: 100 / 120,
      delivered: 100,
      failed: 20,
    });
    const rows = await hoursOf(ep.id);
    assert.equal(total(rows, 'attempts'), 100 + 20 * 7);
    const histogram = ['10', '25', '50', '100', '250', '500', '1000', '2500', '5000', '10000', 'over'];
    assert.equal(
      histogram.reduce((sum, b) => sum + total(rows, `ms_${b}`), 0),
      100 + 20 * 7,
      'every attempt in one bucket',
    );
    const arrivals = new Map<string, number>();
    for (const r of ep.received()) {
      const id = r.headers['x-service-delivery']!;
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
    }
    assert.equal(arrivals.size, 120);
    assert.deepEqual(
      [...arrivals.values()].sort((a, b) => a - b),
      [...Array(100).fill(1), ...Array(20).fill(7)],
    );

    // The failures still in the log are sent again once the receiver is fixed: each ends once more.
    healed = true;
    const failedInLog = (await f.deliveries(ep.id)).filter((d: { status: string }) => d.status === 'failed');
    assert.ok(failedInLog.length > 0);
    const recovered = await f.owner.post(`/api/webhooks/${ep.id}/recover`, {
      json: { since: new Date(since).toISOString() },
    });
    assert.equal(recovered.status, 202, recovered.text);
    assert.equal(recovered.body.data.count, failedInLog.length);
    await f.worker.drain();
    const after = (await f.owner.get(`/api/webhooks/${ep.id}/stats`)).body.data;
    assert.deepEqual([after.succeeded, after.failed], [100 + failedInLog.length, 20]);
    assert.equal(total(await hoursOf(ep.id), 'attempts'), 100 + 20 * 7 + failedInLog.length);
    for (const d of failedInLog) {
      const times = ep.received().filter((r) => r.headers['x-service-delivery'] === d.id).length;
      assert.equal(times, 8, 'seven failed attempts, then one recovered');
    }
  });

  it('counts whole hours, the current one with 23 or 167 before it, and prunes hours after 8 days', async () => {
    const ep = await f.endpoint();
    await f.emit('harvest.batch.created', { n: 1 });
    await f.worker.drain();
    const hour = hourStart(f.t.clock.now());
    const sentAt = (await f.deliveries(ep.id))[0].attempts[0].started_at;
    const at = async (ms: number, window: '24h' | '7d') => {
      f.t.clock.set(ms);
      // Signed in afresh: the clock may have outrun a token.
      const owner = client(f.t.url, await loginToken(f.t.url, f.farm.code, f.farm.owner));
      const stats = (await owner.get(`/api/webhooks/${ep.id}/stats?window=${window}`)).body.data;
      const listed = (await owner.get('/api/webhooks')).body.find((e: { id: string }) => e.id === ep.id);
      return { stats, day: listed.stats_24h.delivered };
    };
    const iso = (ms: number) => new Date(ms).toISOString();

    let seen = await at(hour + DAY_MS - 1, '24h');
    assert.deepEqual([seen.stats.from, seen.stats.succeeded, seen.day], [iso(hour), 1, 1]);
    assert.equal(seen.stats.until, iso(hour + DAY_MS - 1));
    seen = await at(hour + DAY_MS, '24h');
    assert.deepEqual([seen.stats.from, seen.stats.succeeded, seen.day], [iso(hour + HOUR_MS), 0, 0]);
    assert.ok(seen.stats.last_success_at >= sentAt, 'the last success outlives the window');
    seen = await at(hour + DAY_MS, '7d');
    assert.deepEqual([seen.stats.from, seen.stats.succeeded], [iso(hour + DAY_MS - 167 * HOUR_MS), 1]);
    seen = await at(hour + 7 * DAY_MS - 1, '7d');
    assert.deepEqual([seen.stats.from, seen.stats.succeeded], [iso(hour), 1]);
    seen = await at(hour + 7 * DAY_MS, '7d');
    assert.deepEqual([seen.stats.succeeded, seen.stats.duration_ms], [0, { p50: null, p95: null }]);
    assert.notEqual(seen.stats.last_success_at, null);

    assert.equal((await hoursOf(ep.id)).length, 1);
    f.t.clock.set(hour + 8 * DAY_MS + HOUR_MS);
    await f.emit('harvest.batch.created', { n: 2 });
    await f.worker.drain();
    const rows = await hoursOf(ep.id);
    assert.deepEqual(
      rows.map((r) => r.hour_start),
      [hour + 8 * DAY_MS + HOUR_MS],
      'the hour older than 8 days is pruned with the log',
    );
  });

  it('sends a filtered endpoint only the events whose data match, every event to the others', async () => {
    const critical = await f.owner.post('/api/webhooks', {
      json: {
        url: `${f.receiver.origin}/critical-only`,
        events: ['iot.alert.raised', 'harvest.batch.created'],
        filters: { 'iot.alert.raised': { severity: ['critical'] } },
      },
    });
    assert.equal(critical.status, 201, critical.text);
    assert.deepEqual(critical.body.data.filters, { 'iot.alert.raised': { severity: ['critical'] } });
    const everything = await f.endpoint(() => undefined, ['*']);
    const toCritical = () => f.receiver.requests.filter((r) => r.path === '/critical-only');

    for (const severity of ['info', 'warning', 'critical', 'critical'])
      await f.emit('iot.alert.raised', { severity, alert_id: severity.length });
    await f.emit('iot.alert.raised', { alert_id: 0 });
    await f.emit('harvest.batch.created', { harvest_record_id: 1 });
    await f.worker.drain();
    // Sent concurrently: compared in a fixed order.
    const seen = (from: number) =>
      toCritical()
        .slice(from)
        .map((r) => `${r.headers['x-service-event']} ${JSON.stringify(JSON.parse(r.body).data)}`)
        .sort();
    assert.deepEqual(seen(0), [
      'harvest.batch.created {"harvest_record_id":1}',
      'iot.alert.raised {"severity":"critical","alert_id":8}',
      'iot.alert.raised {"severity":"critical","alert_id":8}',
    ]);
    assert.equal(everything.received().length, 6);
    assert.equal(
      (await f.deliveries(critical.body.data.id)).length,
      3,
      'a filtered-out event makes no delivery',
    );

    const numbers = await f.owner.put(`/api/webhooks/${critical.body.data.id}`, {
      json: { filters: { 'harvest.batch.created': { parcel_id: [7, 8], organic: [true] } } },
    });
    assert.equal(numbers.status, 200, numbers.text);
    await f.emit('harvest.batch.created', { parcel_id: 7, organic: true });
    await f.emit('harvest.batch.created', { parcel_id: '7', organic: true });
    await f.emit('harvest.batch.created', { parcel_id: 9, organic: true });
    await f.emit('iot.alert.raised', { severity: 'info' });
    await f.worker.drain();
    assert.deepEqual(seen(3), [
      'harvest.batch.created {"parcel_id":7,"organic":true}',
      'iot.alert.raised {"severity":"info"}',
    ]);
    const cleared = await f.owner.put(`/api/webhooks/${critical.body.data.id}`, { json: { filters: null } });
    assert.equal(cleared.body.data.filters, null);
  });

  it('names the bad part of a filter', async () => {
    const ep = await f.endpoint();
    const many = Array.from({ length: 51 }, (_, i) => i);
    for (const [filters, field] of [
      [{ 'iot.alert.sent': { severity: ['critical'] } }, 'filters.iot.alert.sent'],
      [{ '*': { severity: ['critical'] } }, 'filters.*'],
      [{ 'iot.alert.raised': {} }, 'filters.iot.alert.raised'],
      [{ 'iot.alert.raised': { 'data.severity': ['critical'] } }, 'filters.iot.alert.raised.data.severity'],
      [{ 'iot.alert.raised': { severity: [] } }, 'filters.iot.alert.raised.severity'],
      [{ 'iot.alert.raised': { severity: many } }, 'filters.iot.alert.raised.severity'],
      [{ 'iot.alert.raised': { severity: [{ level: 3 }] } }, 'filters.iot.alert.raised.severity'],
      [['critical'], 'filters'],
    ] as const) {
      const res = await f.owner.put(`/api/webhooks/${ep.id}`, { json: { filters } });
      assert.equal(res.status, 422, JSON.stringify(filters));
      assert.ok(
        res.body[0].meta.errors.some((e: { field: string }) => e.field.startsWith(field)),
        `${field}: ${res.text}`,
      );
      const created = await f.owner.post('/api/webhooks', {
        json: { url: `${f.receiver.origin}/x`, events: ['*'], filters },
      });
      assert.equal(created.status, 422, JSON.stringify(filters));
    }
    assert.equal((await f.getEndpoint(ep.id)).filters, null);
  });
});
