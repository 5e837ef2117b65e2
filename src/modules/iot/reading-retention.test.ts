// Retention with a driven clock: old raw readings and their 1-minute buckets go, in small batches and
// for every tenant; the hourly and daily roll-ups stay and the series still answers from them.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { type Api, iotFixture } from '../../../test/support/iot.js';
import { createReadingRetention, pruneRawReadings } from './reading-retention.js';
import { deleteMinuteBuckets } from './reading-rollup.repository.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 10, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

forEachDialect('IoT raw reading retention', (database) => {
  const f = iotFixture(database);
  const { device, send } = f;
  let t: TestApp;
  let api: Api;
  before(() => {
    ({ t, api } = f);
    t.clock.set(NOW);
  });

  const prune = (retentionDays = 90) =>
    pruneRawReadings({ db: t.database.db, clock: t.clock }, { retentionDays, batchSize: 2, deleteChunk: 2 });
  const raw = async (as: Api, id: number) =>
    (await as.get(`/api/iot/devices/${id}/readings?pageLimit=1000`)).body.map(
      (r: { value: number }) => r.value,
    );
  const series = async (as: Api, id: number, query: string) => {
    const res = await as.get(`/api/iot/devices/${id}/readings/series?metric=temperature&${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body.map((p: { t: string; min: number; max: number; count: number }) => [
      p.t,
      p.min,
      p.max,
      p.count,
    ]);
  };

  describe('retention', () => {
    it('deletes raw readings past the retention and their minutes; hours and days stay', async () => {
      const d = await device('keep-1');
      const old = NOW - 100 * DAY; // 2026-03-02T12:00:00Z
      const reading = (value: number, at: number) => ({
        device_code: 'keep-1',
        metric: 'temperature',
        value,
        recorded_at: iso(at),
      });
      await send([reading(1, old + 10_000), reading(3, old + 20_000), reading(5, old + 3_600_000)]);
      await send([reading(7, old + 30_000), reading(9, old + 120_000)]); // more minutes, another batch
      await send([reading(20, NOW - DAY), reading(22, NOW - DAY + 60_000)]);
      // Another tenant's old reading goes too: retention is the same for every tenant.
      const theirs = (await f.otherApi.post('/api/iot/devices', { json: { code: 'theirs-1', name: 'T' } }))
        .body[0];
      await f.otherApi.post('/api/iot/readings', {
        json: {
          readings: [{ device_code: 'theirs-1', metric: 'temperature', value: 4, recorded_at: iso(old) }],
        },
      });

      const pruned = await prune();
      assert.deepEqual(pruned, { readings: 6, buckets: 4 });
      assert.deepEqual(
        (await raw(api, d.id)).sort((a: number, b: number) => a - b),
        [20, 22],
      );
      assert.deepEqual(await raw(f.otherApi, theirs.id), []);

      const oldRange = `from=${iso(old - DAY)}&to=${iso(old + DAY)}`;
      assert.deepEqual(await series(api, d.id, `bucket=1m&from=${iso(old)}&to=${iso(old + DAY)}`), []);
      assert.deepEqual(await series(api, d.id, `bucket=1h&${oldRange}`), [
        ['2026-03-02T12:00:00.000Z', 1, 9, 4],
        ['2026-03-02T13:00:00.000Z', 5, 5, 1],
      ]);
      assert.deepEqual(await series(api, d.id, `bucket=1d&from=2026-03-01&to=2026-03-03`), [
        ['2026-03-02T00:00:00.000Z', 1, 9, 5],
      ]);
      assert.deepEqual(await series(f.otherApi, theirs.id, 'bucket=1d&from=2026-03-01&to=2026-03-03'), [
        ['2026-03-02T00:00:00.000Z', 4, 4, 1],
      ]);
      // Recent minutes are untouched.
      assert.deepEqual(await series(api, d.id, 'bucket=1m'), [
        ['2026-06-09T12:00:00.000Z', 20, 20, 1],
        ['2026-06-09T12:01:00.000Z', 22, 22, 1],
      ]);
      // A second run finds nothing.
      assert.deepEqual(await prune(), { readings: 0, buckets: 0 });

      // A late reading older than the retention is stored, then goes at the next run.
      await send([reading(11, old + 40_000)]);
      assert.ok((await raw(api, d.id)).includes(11));
      // Stored between the job's two deletes, it keeps its bucket, so the next run finds it.
      const scope = { db: t.database.db, tenantId: f.farm.id };
      assert.equal(await deleteMinuteBuckets(scope, d.id, NOW - 90 * DAY), 0);
      assert.deepEqual(await prune(), { readings: 1, buckets: 1 });
      assert.deepEqual(await series(api, d.id, `bucket=1h&${oldRange}`), [
        ['2026-03-02T12:00:00.000Z', 1, 11, 5],
        ['2026-03-02T13:00:00.000Z', 5, 5, 1],
      ]);

      // As the clock moves on, the readings of a day ago age out in turn.
      t.clock.set(NOW + 89 * DAY);
      assert.deepEqual(await prune(), { readings: 0, buckets: 0 });
      t.clock.set(NOW + 89 * DAY + 60_000);
      assert.deepEqual(await prune(), { readings: 1, buckets: 1 });
      t.clock.set(NOW + 90 * DAY);
      assert.deepEqual(await prune(), { readings: 1, buckets: 1 });
      assert.deepEqual(await raw(api, d.id), []);
      assert.deepEqual(await series(api, d.id, 'bucket=1d&from=2026-06-09&to=2026-06-09'), [
        ['2026-06-09T00:00:00.000Z', 20, 22, 2],
      ]);
      t.clock.set(NOW);
    });

    it('runs as a background service until stopped', async () => {
      const d = await device('keep-service');
      const old = {
        device_code: 'keep-service',
        metric: 'temperature',
        value: 2,
        recorded_at: iso(NOW - 95 * DAY),
      };
      await send([old]);
      const logged: unknown[] = [];
      const log = (entry: unknown) => logged.push(entry);
      const service = createReadingRetention({
        db: t.database.db,
        clock: t.clock,
        retentionDays: 90,
        intervalMs: 20,
        logger: { info: log, warn: log, error: log },
      });
      await service.start();
      try {
        for (let i = 0; i < 200 && (await raw(api, d.id)).length > 0; i++) await sleep(20);
        assert.deepEqual(await raw(api, d.id), []);
      } finally {
        await service.stop();
      }
      assert.deepEqual(logged[0], { readings: 1, buckets: 1 });
    });

    it('keeps everything when the retention is 0', async () => {
      const d = await device('keep-forever');
      await send([
        { device_code: 'keep-forever', metric: 'temperature', value: 1, recorded_at: iso(NOW - 400 * DAY) },
      ]);
      assert.deepEqual(await prune(0), { readings: 0, buckets: 0 });
      assert.deepEqual(await raw(api, d.id), [1]);
      assert.deepEqual(
        await series(
          api,
          d.id,
          `bucket=1m&from=${iso(NOW - 400 * DAY - 60_000)}&to=${iso(NOW - 400 * DAY + 60_000)}`,
        ).then((s) => s.length),
        1,
      );
      await prune(); // leave the database as the other tests expect
    });
  });
});
