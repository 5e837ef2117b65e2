// What an owner sees of an endpoint and chooses for it, against the real HTTPS receiver: the log's
// filters, the stats of a window (percentiles on each database's own path), the list's last day, and
// per-kind data filters that keep events from making deliveries at all.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { client } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken } from '../../../test/support/factories.js';
import { DELAYS, webhookFixture } from '../../../test/support/webhook-fixture.js';

/** Continuous percentile, as PostgreSQL's percentile_cont. */
function percentile(sorted: number[], p: number): number {
  const rank = p * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
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
    assert.deepEqual(stats.duration_ms, {
      p50: Math.round(percentile(durations, 0.5)),
      p95: Math.round(percentile(durations, 0.95)),
    });
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
