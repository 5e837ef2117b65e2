// A device's readings series through the API: buckets from the roll-ups, late readings merged,
// metrics and tenants apart, the 1500-bucket cap, 404 and 422.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { client, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { type Api, iotFixture } from '../../../test/support/iot.js';
import { rollUp } from './reading-rollup.repository.js';

const NOW = Date.UTC(2026, 5, 10, 12, 0, 0);
const at = (h: number, m: number, s = 0) => new Date(Date.UTC(2026, 5, 10, h, m, s)).toISOString();

interface Point {
  t: string;
  min: number;
  max: number;
  avg: number;
  count: number;
}

describe('roll-up of a batch in memory', () => {
  it('sums each device, metric and bucket once, in key order', () => {
    const r = (device_id: number, metric: string, value: number, recorded_at: number) => ({
      device_id,
      metric,
      value,
      recorded_at,
    });
    const rows = rollUp(
      [r(2, 't', 5, 61_000), r(1, 't', 3, 1_000), r(1, 't', -1, 59_999), r(1, 'h', 9, 0), r(1, 't', 7, -1)],
      '1m',
    );
    assert.deepEqual(
      rows.map((x) => [x.device_id, x.metric, x.bucket_start, x.min, x.max, x.sum, x.count]),
      [
        [1, 'h', 0, 9, 9, 9, 1],
        [1, 't', -60_000, 7, 7, 7, 1],
        [1, 't', 0, -1, 3, 2, 2],
        [2, 't', 60_000, 5, 5, 5, 1],
      ],
    );
  });
});

forEachDialect('IoT readings series', (database) => {
  const f = iotFixture(database);
  const { device, send } = f;
  let t: TestApp;
  let api: Api;
  before(() => {
    ({ t, api } = f);
    t.clock.set(NOW);
  });

  const series = async (id: number, query: string, as: Api = api) => {
    const res = await as.get(`/api/iot/devices/${id}/readings/series?${query}`);
    return res;
  };
  const points = async (id: number, query: string): Promise<Point[]> => {
    const res = await series(id, query);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const reading = (code: string, metric: string, value: number, recorded_at: string) => ({
    device_code: code,
    metric,
    value,
    recorded_at,
  });

  describe('buckets', () => {
    it('answers min, max, avg and count per bucket, oldest first, only buckets with readings', async () => {
      const d = await device('series-1');
      const res = await send([
        reading('series-1', 'temperature', 30, at(10, 1, 30)),
        reading('series-1', 'temperature', 10, at(10, 0, 10)),
        reading('series-1', 'humidity', 55, at(10, 0, 20)),
        reading('series-1', 'temperature', 20, at(10, 0, 50)),
        reading('series-1', 'temperature', 40, at(11, 30)),
      ]);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(await points(d.id, `metric=temperature&bucket=1m&from=${at(10, 0)}&to=${at(10, 5)}`), [
        { t: '2026-06-10T10:00:00.000Z', min: 10, max: 20, avg: 15, count: 2 },
        { t: '2026-06-10T10:01:00.000Z', min: 30, max: 30, avg: 30, count: 1 },
      ]);
      assert.deepEqual(await points(d.id, `metric=temperature&bucket=1h&from=${at(9, 0)}&to=${at(12, 0)}`), [
        { t: '2026-06-10T10:00:00.000Z', min: 10, max: 30, avg: 20, count: 3 },
        { t: '2026-06-10T11:00:00.000Z', min: 40, max: 40, avg: 40, count: 1 },
      ]);
      assert.deepEqual(await points(d.id, 'metric=temperature&bucket=1d'), [
        { t: '2026-06-10T00:00:00.000Z', min: 10, max: 40, avg: 25, count: 4 },
      ]);
      // Each metric on its own.
      assert.deepEqual(await points(d.id, 'metric=humidity&bucket=1h'), [
        { t: '2026-06-10T10:00:00.000Z', min: 55, max: 55, avg: 55, count: 1 },
      ]);
      assert.deepEqual(await points(d.id, 'metric=soil_moisture'), []);
    });

    it('takes the buckets holding from and to, and a default period per bucket size', async () => {
      const d = await device('series-2');
      await send([
        reading('series-2', 'temperature', 1, at(10, 0, 30)),
        reading('series-2', 'temperature', 2, new Date(NOW - 2 * 86_400_000).toISOString()),
        reading('series-2', 'temperature', 3, new Date(NOW - 10 * 86_400_000).toISOString()),
      ]);
      // from and to inside a bucket still take it whole.
      assert.deepEqual(
        (await points(d.id, `metric=temperature&bucket=1m&from=${at(10, 0, 45)}&to=${at(10, 0, 50)}`)).map(
          (p) => p.count,
        ),
        [1],
      );
      const times = async (query: string) =>
        (await points(d.id, `metric=temperature&${query}`)).map((p) => p.t);
      // 1m: the last 24 hours; 1h (the default bucket): 7 days; 1d: 30 days.
      assert.deepEqual(await times('bucket=1m'), ['2026-06-10T10:00:00.000Z']);
      assert.deepEqual(await times(''), ['2026-06-08T12:00:00.000Z', '2026-06-10T10:00:00.000Z']);
      assert.deepEqual(await times('bucket=1d'), [
        '2026-05-31T00:00:00.000Z',
        '2026-06-08T00:00:00.000Z',
        '2026-06-10T00:00:00.000Z',
      ]);
      // Without from, the default period ends at to.
      assert.deepEqual(await times(`bucket=1d&to=${new Date(NOW - 5 * 86_400_000).toISOString()}`), [
        '2026-05-31T00:00:00.000Z',
      ]);
      // The spec's timestamp form works as everywhere else.
      assert.deepEqual(await times('bucket=1h&from=2026-06-10 10:00:00&to=2026-06-10 10:59:59'), [
        '2026-06-10T10:00:00.000Z',
      ]);
    });

    it('merges late and out-of-order readings into the buckets they belong to', async () => {
      const d = await device('series-late');
      await send([reading('series-late', 'temperature', 20, at(10, 0, 10))]);
      await send([reading('series-late', 'temperature', 22, at(11, 0, 10))]);
      // Late: older than what the buckets already hold, in one batch and across batches.
      await send([
        reading('series-late', 'temperature', 5, at(10, 0, 40)),
        reading('series-late', 'temperature', 50, at(10, 0, 5)),
        reading('series-late', 'temperature', 8, at(9, 59, 59)),
      ]);
      await send([reading('series-late', 'temperature', 17, at(10, 0, 59))]);
      const minute = await points(d.id, `metric=temperature&bucket=1m&from=${at(9, 59)}&to=${at(10, 0)}`);
      assert.deepEqual(minute, [
        { t: '2026-06-10T09:59:00.000Z', min: 8, max: 8, avg: 8, count: 1 },
        { t: '2026-06-10T10:00:00.000Z', min: 5, max: 50, avg: 23, count: 4 },
      ]);
      const day = await points(d.id, 'metric=temperature&bucket=1d&from=2026-06-10&to=2026-06-10');
      assert.deepEqual(day, [{ t: '2026-06-10T00:00:00.000Z', min: 5, max: 50, avg: 122 / 6, count: 6 }]);
    });

    it('counts a batch of 1000 readings in one call', async () => {
      const d = await device('series-bulk');
      const readings = Array.from({ length: 1000 }, (_, i) =>
        reading(
          'series-bulk',
          i % 2 === 0 ? 'temperature' : 'humidity',
          i,
          new Date(NOW - i * 30_000).toISOString(),
        ),
      );
      assert.equal((await send(readings)).status, 200);
      const hours = await points(d.id, 'metric=temperature&bucket=1h&from=2026-06-09&to=2026-06-11');
      assert.equal(
        hours.reduce((n, p) => n + p.count, 0),
        500,
      );
      assert.equal(Math.max(...hours.map((p) => p.max)), 998);
      assert.equal(Math.min(...hours.map((p) => p.min)), 0);
      const minutes = await points(d.id, 'metric=humidity&bucket=1m');
      assert.equal(minutes.length, 500); // one humidity reading per minute, 500 minutes back
      assert.ok(minutes.every((p) => p.count === 1));
    });
  });

  describe('tenants', () => {
    it('keeps each tenant to its own devices and buckets', async () => {
      const mine = await device('shared-code');
      const theirs = (
        await f.otherApi.post('/api/iot/devices', { json: { code: 'shared-code', name: 'Theirs' } })
      ).body[0];
      await send([reading('shared-code', 'temperature', 10, at(10, 0))]);
      await f.otherApi.post('/api/iot/readings', {
        json: { readings: [reading('shared-code', 'temperature', 90, at(10, 0))] },
      });
      assert.deepEqual(
        (await points(mine.id, 'metric=temperature')).map((p) => [p.max, p.count]),
        [[10, 1]],
      );
      const other = await series(theirs.id, 'metric=temperature', f.otherApi);
      assert.deepEqual(
        other.body.map((p: Point) => [p.max, p.count]),
        [[90, 1]],
      );
      // Another tenant's device is a 404, exactly like a missing one.
      assert.equal((await series(theirs.id, 'metric=temperature')).status, 404);
      assert.equal((await series(mine.id, 'metric=temperature', f.otherApi)).status, 404);
    });
  });

  describe('limits and errors', () => {
    it('answers at most 1500 buckets; a longer span is a 422 naming from and the maximum', async () => {
      const d = await device('series-cap');
      const from = Date.UTC(2026, 5, 9, 0, 0);
      const to1500 = new Date(from + 1499 * 60_000).toISOString();
      const ok = await series(d.id, `metric=t&bucket=1m&from=${new Date(from).toISOString()}&to=${to1500}`);
      assert.equal(ok.status, 200, ok.text);
      const over = await series(
        d.id,
        `metric=t&bucket=1m&from=${new Date(from).toISOString()}&to=${new Date(from + 1500 * 60_000).toISOString()}`,
      );
      assert.equal(over.status, 422);
      const [error] = over.body[0].meta.errors;
      assert.equal(error.field, 'from');
      assert.match(error.message, /1501 buckets of 1m; at most 1500/);
      // Hourly: 62.5 days fit; daily: about four years.
      assert.equal((await series(d.id, 'metric=t&bucket=1h&from=2026-01-01&to=2026-06-10')).status, 422);
      assert.equal((await series(d.id, 'metric=t&bucket=1h&from=2026-04-10&to=2026-06-10')).status, 200);
      assert.equal((await series(d.id, 'metric=t&bucket=1d&from=2022-06-10&to=2026-06-10')).status, 200);
      assert.equal((await series(d.id, 'metric=t&bucket=1d&from=2021-06-10&to=2026-06-10')).status, 422);
    });

    it('answers 404 for an unknown or deleted device and 422 for bad input, in the error shape', async () => {
      assert.equal((await series(2_000_000, 'metric=t')).status, 404);
      const gone = await device('series-gone');
      assert.equal((await api.delete(`/api/iot/devices/${gone.id}`)).status, 200);
      assert.equal((await series(gone.id, 'metric=t')).status, 404);

      const d = await device('series-bad');
      const fields = async (query: string) => {
        const res = await series(d.id, query);
        assert.equal(res.status, 422, `${query}: ${res.text}`);
        assert.equal(res.body[0].meta.status_code, 422);
        return res.body[0].meta.errors.map((e: { field: string }) => e.field);
      };
      assert.deepEqual(await fields(''), ['metric']);
      assert.deepEqual(await fields('metric='), ['metric']);
      assert.deepEqual(await fields('metric=t&bucket=5m'), ['bucket']);
      assert.deepEqual(await fields('metric=t&from=yesterday'), ['from']);
      assert.deepEqual(await fields('metric=t&to=2026-02-30'), ['to']);
      assert.deepEqual(await fields(`metric=t&from=${at(11, 0)}&to=${at(10, 0)}`), ['to']);
      assert.equal(
        (await client(t.url).get(`/api/iot/devices/${d.id}/readings/series?metric=t`)).status,
        401,
      );
    });

    it('is documented in OpenAPI', async () => {
      const doc = (await client(t.url).get('/openapi.json')).body;
      const route = doc.paths['/api/iot/devices/{id}/readings/series'].get;
      const names = route.parameters.map((p: { name: string }) => p.name);
      for (const name of ['id', 'metric', 'bucket', 'from', 'to']) assert.ok(names.includes(name), name);
      assert.ok(!names.includes('page'));
      assert.deepEqual(Object.keys(route.responses).sort(), ['200', '401', '404', '422']);
    });
  });
});
