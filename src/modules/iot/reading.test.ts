// Readings through the API: alerts on crossings, zone rules, order, rejections one by one, limits.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { type Api, type IotFixture, iotFixture } from '../../../test/support/iot.js';

forEachDialect('IoT readings and alerts', (database) => {
  const f = iotFixture(database);
  const { device, send } = f;
  let t: TestApp;
  let api: Api;
  let places: IotFixture['places'];
  before(() => {
    ({ t, api, places } = f);
  });

  /** The webhook events queued about a device's readings, in the order queued: "type alert_id". */
  const queuedEvents = async (deviceCode: string) =>
    (
      await t.database.db
        .selectFrom('webhook_deliveries')
        .select(['event_type', 'body'])
        .where('tenant_id', '=', f.farm.id)
        .orderBy('id')
        .execute()
    )
      .map((row) => ({ type: row.event_type, data: JSON.parse(row.body).data }))
      .filter((event) => event.data.device_code === deviceCode)
      .map((event) => `${event.type} ${event.data.alert_id}`);

  /**
   * Runs `fn` while a trigger refuses every write to `table` (on SQLite, the `sqliteOn` kind),
   * then drops the trigger.
   */
  const whileRefused = async <R>(table: string, sqliteOn: 'insert' | 'update', fn: () => Promise<R>) => {
    const db = t.database.db;
    const postgres = database.dialect === 'postgres';
    if (postgres) {
      await sql`create function refuse_write() returns trigger language plpgsql as $$
        begin raise exception 'write refused'; end $$`.execute(db);
      await sql`create trigger refuse_write before insert or update on ${sql.table(table)}
        for each row execute function refuse_write()`.execute(db);
    } else {
      await sql`create trigger refuse_write before ${sql.raw(sqliteOn)} on ${sql.table(table)}
        begin select raise(abort, 'write refused'); end`.execute(db);
    }
    try {
      return await fn();
    } finally {
      await sql`drop trigger refuse_write${postgres ? sql` on ${sql.table(table)}` : sql``}`.execute(db);
      if (postgres) await sql`drop function refuse_write()`.execute(db);
    }
  };

  describe('readings', () => {
    it('raises an alert only when a value crosses the threshold from the normal side', async () => {
      const d = await device('edge-1');
      const rule = (
        await api.post('/api/iot/rules', {
          json: {
            metric: 'temperature',
            operator: 'gt',
            threshold: 30,
            severity: 'critical',
            device_id: d.id,
            message: '{device_code} at {value}',
          },
        })
      ).body[0];
      const values = [25, 31, 35, 29, 33, 34, 20];
      const raised: number[] = [];
      for (const [i, value] of values.entries()) {
        t.clock.advance(1000);
        const res = await send([
          {
            device_code: 'edge-1',
            metric: 'temperature',
            value,
            recorded_at: new Date(t.clock.now()).toISOString(),
          },
        ]);
        assert.equal(res.status, 200, res.text);
        if (res.body.data.results[0].alert_ids.length > 0) raised.push(i);
      }
      assert.deepEqual(raised, [1, 4]);
      const alerts = (await api.get(`/api/iot/alerts?device_id=${d.id}`)).body;
      assert.equal(alerts.length, 2);
      assert.equal(alerts[0].value, 33); // newest first
      assert.equal(alerts[1].value, 31);
      assert.equal(alerts[0].message, 'edge-1 at 33');
      assert.equal(alerts[0].rule_id, rule.id);
      assert.equal(alerts[0].severity, 'critical');
      // Readings are stored, newest first.
      const stored = (await api.get(`/api/iot/devices/${d.id}/readings?metric=temperature`)).body;
      assert.deepEqual(
        stored.map((r: { value: number }) => r.value),
        [...values].reverse(),
      );
    });

    it('applies a zone rule to every device of the zone, and only those', async () => {
      await device('zone-a-1');
      await device('zone-a-2');
      await device('zone-b-1', { zone_id: places.zoneB.id });
      await api.post('/api/iot/rules', {
        json: { metric: 'soil_moisture', operator: 'lt', threshold: 20, zone_id: places.zoneA.id },
      });
      const res = await send([
        { device_code: 'zone-a-1', metric: 'soil_moisture', value: 10 },
        { device_code: 'zone-a-2', metric: 'soil_moisture', value: 12 },
        { device_code: 'zone-b-1', metric: 'soil_moisture', value: 5 },
        { device_code: 'zone-a-1', metric: 'humidity', value: 1 },
      ]);
      assert.deepEqual(
        res.body.data.results.map((r: { alert_ids: number[] }) => r.alert_ids.length),
        [1, 1, 0, 0],
      );
    });

    it('keeps each rule’s state for each device apart from batch to batch', async () => {
      // Two rules over two devices (one through their zone, one aimed at a device): each pair's
      // state is read back with its rule and must reach that pair only.
      const one = await device('apart-1');
      const two = await device('apart-2');
      await api.post('/api/iot/rules', {
        json: { metric: 'ec', operator: 'gt', threshold: 3, zone_id: places.zoneA.id },
      });
      await api.post('/api/iot/rules', {
        json: { metric: 'ec', operator: 'gt', threshold: 5, device_id: two.id },
      });
      const batch = async (first: number, second: number) => {
        t.clock.advance(1000);
        const at = new Date(t.clock.now()).toISOString();
        const res = await send([
          { device_code: 'apart-1', metric: 'ec', value: first, recorded_at: at },
          { device_code: 'apart-2', metric: 'ec', value: second, recorded_at: at },
        ]);
        assert.equal(res.status, 200, res.text);
        return res.body.data.results.map((r: { alert_ids: number[] }) => r.alert_ids.length);
      };
      // apart-1 crosses the zone's rule; apart-2 stays below both.
      assert.deepEqual(await batch(4, 1), [1, 0]);
      // apart-1 is still over (nothing new); apart-2 crosses both of its rules at once.
      assert.deepEqual(await batch(4, 6), [0, 2]);
      // Both still over: nothing new for either.
      assert.deepEqual(await batch(4.5, 7), [0, 0]);
      // apart-2 falls under the device's rule only, then crosses it again: one alert, that rule's.
      assert.deepEqual(await batch(4, 4), [0, 0]);
      assert.deepEqual(await batch(4, 6), [0, 1]);
      const active = (await api.get(`/api/iot/alerts?device_id=${two.id}&status=active`)).body;
      assert.equal(active.length, 2);
      assert.equal((await api.get(`/api/iot/alerts?device_id=${one.id}`)).body.length, 1);
    });

    it('orders a batch by recorded_at and ignores out-of-order readings for the alert state', async () => {
      const d = await device('order-1');
      await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
      });
      const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
      // In one batch, sent out of order: by time it goes 20 (s=1), 40 (s=2) → one alert.
      const first = await send([
        { device_code: 'order-1', metric: 'temperature', value: 40, recorded_at: at(2) },
        { device_code: 'order-1', metric: 'temperature', value: 20, recorded_at: at(1) },
      ]);
      assert.deepEqual(
        first.body.data.results.map((r: { alert_ids: number[] }) => r.alert_ids.length),
        [1, 0],
      );
      // An older normal reading is stored but does not re-arm the rule...
      const late = await send([
        { device_code: 'order-1', metric: 'temperature', value: 10, recorded_at: at(0) },
      ]);
      assert.equal(late.body.data.results[0].status, 'accepted');
      // ...so the next breach raises nothing.
      const again = await send([
        { device_code: 'order-1', metric: 'temperature', value: 45, recorded_at: at(3) },
      ]);
      assert.deepEqual(again.body.data.results[0].alert_ids, []);
      assert.equal((await api.get(`/api/iot/devices/${d.id}/readings`)).body.length, 4);
    });

    /** `s` seconds into 2026-02-01 (UTC), as a reading's recorded_at. */
    const stamp = (s: number) => new Date(Date.UTC(2026, 1, 1) + s * 1000).toISOString();
    const temperature = (code: string, value: number, s: number) => ({
      device_code: code,
      metric: 'temperature',
      value,
      recorded_at: stamp(s),
    });

    it('raises and resolves alerts one after another in one batch: each event with its alert, in order', async () => {
      // Outside any zone: no other test's rule reaches it. The endpoint is removed at the end.
      const d = await device('turns-1', { zone_id: null });
      await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
      });
      const hook = await api.post('/api/webhooks', {
        json: { url: 'https://93.184.215.14/hook', events: ['iot.alert.raised', 'iot.alert.resolved'] },
      });
      assert.equal(hook.status, 201, hook.text);
      const reading = (value: number, s: number) => temperature('turns-1', value, s);
      const events = () => queuedEvents('turns-1');
      try {
        const res = await send([
          reading(31, 1),
          reading(20, 2),
          reading(35, 3),
          reading(10, 4),
          reading(40, 5),
        ]);
        assert.equal(res.status, 200, res.text);
        const results = res.body.data.results as { alert_ids: number[]; resolved_alert_ids: number[] }[];
        const [a, b, c] = [results[0]!.alert_ids[0], results[2]!.alert_ids[0], results[4]!.alert_ids[0]];
        assert.ok(a !== undefined && b !== undefined && c !== undefined && a < b && b < c);
        assert.deepEqual(
          results.map((r) => [r.alert_ids, r.resolved_alert_ids]),
          [
            [[a], []],
            [[], [a]],
            [[b], []],
            [[], [b]],
            [[c], []],
          ],
        );
        assert.deepEqual(await events(), [
          `iot.alert.raised ${a}`,
          `iot.alert.resolved ${a}`,
          `iot.alert.raised ${b}`,
          `iot.alert.resolved ${b}`,
          `iot.alert.raised ${c}`,
        ]);
        // A resolve of an alert raised in the same batch carries the alert as raised.
        const resolvedOf = async (alertId: number) =>
          (
            await t.database.db
              .selectFrom('webhook_deliveries')
              .select('body')
              .where('tenant_id', '=', f.farm.id)
              .where('event_type', '=', 'iot.alert.resolved')
              .execute()
          )
            .map((row) => JSON.parse(row.body).data)
            .find((data) => data.alert_id === alertId);
        const first = await resolvedOf(a);
        assert.equal(first.value, 31);
        assert.equal(first.resolved_value, 20);
        assert.equal(first.recorded_at, stamp(1));
        assert.equal(first.resolved_at, stamp(2));
        const listed = async () =>
          ((await api.get(`/api/iot/alerts?device_id=${d.id}`)).body as { id: number; status: string }[])
            .map((alert) => `${alert.id} ${alert.status}`)
            .sort();
        assert.deepEqual(await listed(), [`${a} resolved`, `${b} resolved`, `${c} active`].sort());

        // The rule's state kept the last alert: the next batch resolves it, and then one resolves
        // the alert of the batch before it and raises another.
        const next = await send([reading(5, 6)]);
        assert.deepEqual(next.body.data.results[0].resolved_alert_ids, [c]);
        const d4 = (await send([reading(66, 6.2)])).body.data.results[0].alert_ids[0] as number;
        const swap = await send([reading(12, 6.4), reading(77, 6.6)]);
        assert.equal(swap.status, 200, swap.text);
        const e5 = swap.body.data.results[1].alert_ids[0] as number;
        assert.deepEqual(swap.body.data.results[0].resolved_alert_ids, [d4]);
        assert.ok(e5 > d4);
        assert.deepEqual((await events()).slice(-4), [
          `iot.alert.resolved ${c}`,
          `iot.alert.raised ${d4}`,
          `iot.alert.resolved ${d4}`,
          `iot.alert.raised ${e5}`,
        ]);
        const data = await resolvedOf(d4);
        assert.equal(data.alert_id, d4);
        assert.equal(data.value, 66);
        assert.equal(data.resolved_value, 12);
        assert.equal(data.recorded_at, stamp(6.2));
        assert.equal(data.resolved_at, stamp(6.4));
        assert.equal(data.clear_threshold, 30);
        assert.equal((await send([reading(3, 6.8)])).body.data.results[0].resolved_alert_ids[0], e5);

        // A state that lost its alert's id: the resolve looks for the newest active alert of the
        // rule and device, which must be the one raised before this batch, not the batch's own.
        const again = await send([reading(50, 7)]);
        const old = again.body.data.results[0].alert_ids[0] as number;
        await t.database.db
          .updateTable('iot_rule_states')
          .set({ active_alert_id: null })
          .where('tenant_id', '=', f.farm.id)
          .where('device_id', '=', d.id)
          .execute();
        const turn = await send([reading(10, 8), reading(60, 9)]);
        assert.equal(turn.status, 200, turn.text);
        const fresh = turn.body.data.results[1].alert_ids[0] as number;
        assert.deepEqual(turn.body.data.results[0].resolved_alert_ids, [old]);
        assert.ok(fresh > old);
        assert.deepEqual((await events()).slice(-2), [
          `iot.alert.resolved ${old}`,
          `iot.alert.raised ${fresh}`,
        ]);
        const active = (await api.get(`/api/iot/alerts?device_id=${d.id}&status=active`)).body;
        assert.deepEqual(
          active.map((alert: { id: number }) => alert.id),
          [fresh],
        );
      } finally {
        await api.delete(`/api/webhooks/${hook.body.data.id}`);
      }
    });

    it('resolves the alerts of two sensors raised in the same batch, each its own', async () => {
      const one = await device('pair-1', { zone_id: null });
      const two = await device('pair-2', { zone_id: null });
      for (const d of [one, two]) {
        await api.post('/api/iot/rules', {
          json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
        });
      }
      const reading = temperature;
      // pair-1 raises, pair-2 raises, pair-2 resolves, pair-1 resolves, pair-2 raises again.
      const res = await send([
        reading('pair-1', 31, 1),
        reading('pair-2', 41, 2),
        reading('pair-2', 15, 3),
        reading('pair-1', 20, 4),
        reading('pair-2', 45, 5),
      ]);
      assert.equal(res.status, 200, res.text);
      const results = res.body.data.results as { alert_ids: number[]; resolved_alert_ids: number[] }[];
      const [a, b, c] = [results[0]!.alert_ids[0]!, results[1]!.alert_ids[0]!, results[4]!.alert_ids[0]!];
      assert.deepEqual(results[2]!.resolved_alert_ids, [b]);
      assert.deepEqual(results[3]!.resolved_alert_ids, [a]);
      const statuses = async (d: { id: number }) =>
        (
          (await api.get(`/api/iot/alerts?device_id=${d.id}`)).body as {
            id: number;
            status: string;
            value: number;
          }[]
        )
          .map((alert) => `${alert.id} ${alert.status} ${alert.value}`)
          .sort();
      assert.deepEqual(await statuses(one), [`${a} resolved 31`]);
      assert.deepEqual(await statuses(two), [`${b} resolved 41`, `${c} active 45`].sort());
    });

    it('queues the deliveries of a batch bigger than one statement in event order, and none of a batch that fails after writing some', async () => {
      // 700 events (350 raises, 350 resolves) to one endpoint: more deliveries than one insert
      // takes (500), so some are written before the batch ends.
      const d = await device('many-1', { zone_id: null });
      await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
      });
      const hook = await api.post('/api/webhooks', {
        json: { url: 'https://93.184.215.14/many', events: ['iot.alert.raised', 'iot.alert.resolved'] },
      });
      assert.equal(hook.status, 201, hook.text);
      const events = () => queuedEvents('many-1');
      const crossings = (from: number) =>
        Array.from({ length: 700 }, (_, i) => temperature('many-1', i % 2 === 0 ? 40 : 20, from + i / 100));
      try {
        const res = await send(crossings(100));
        assert.equal(res.status, 200, res.text);
        const results = res.body.data.results as { alert_ids: number[]; resolved_alert_ids: number[] }[];
        const expected = results.flatMap((r) => [
          ...r.alert_ids.map((id) => `iot.alert.raised ${id}`),
          ...r.resolved_alert_ids.map((id) => `iot.alert.resolved ${id}`),
        ]);
        assert.equal(expected.length, 700);
        assert.deepEqual(await events(), expected);

        // The rule states are written last (with the last deliveries on PostgreSQL): refused, the
        // batch leaves none of the deliveries it wrote before.
        const failed = await whileRefused('iot_rule_states', 'update', () => send(crossings(200)));
        assert.equal(failed.status, 500, failed.text);
        assert.equal((await events()).length, 700);
        assert.equal((await api.get(`/api/iot/devices/${d.id}/readings?pageLimit=1000`)).body.length, 700);
      } finally {
        await api.delete(`/api/webhooks/${hook.body.data.id}`);
      }
    });

    it('rejects bad readings one by one and keeps the good ones of the batch', async () => {
      const d = await device('mixed-1');
      const res = await send([
        { device_code: 'mixed-1', metric: 'temperature', value: 21.5 },
        { device_code: 'no-such-device', metric: 'temperature', value: 20 },
        { device_code: 'mixed-1', metric: 'Bad Metric', value: 20 },
        { device_code: 'mixed-1', metric: 'temperature', value: 'warm' },
        { device_code: 'mixed-1', metric: 'temperature', value: 20, recorded_at: 'yesterday' },
        'not an object',
        { device_code: 'mixed-1', metric: 'humidity', value: '55' },
      ]);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.accepted, 2);
      assert.equal(res.body.data.rejected, 5);
      const byIndex = res.body.data.results;
      assert.deepEqual(
        byIndex.map((r: { status: string }) => r.status),
        ['accepted', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'accepted'],
      );
      assert.deepEqual(
        byIndex[1].errors.map((e: { field: string }) => e.field),
        ['readings.1.device_code'],
      );
      assert.match(byIndex[1].errors[0].message, /does not exist/);
      assert.deepEqual(
        byIndex[2].errors.map((e: { field: string }) => e.field),
        ['readings.2.metric'],
      );
      assert.deepEqual(
        byIndex[3].errors.map((e: { field: string }) => e.field),
        ['readings.3.value'],
      );
      assert.deepEqual(
        byIndex[4].errors.map((e: { field: string }) => e.field),
        ['readings.4.recorded_at'],
      );
      assert.deepEqual(
        byIndex[5].errors.map((e: { field: string }) => e.field),
        ['readings.5'],
      );
      const stored = (await api.get(`/api/iot/devices/${d.id}/readings`)).body;
      assert.deepEqual(stored.map((r: { value: number }) => r.value).sort(), [21.5, 55]);
      // Each accepted reading is a heartbeat.
      const after = (await api.get(`/api/iot/devices/${d.id}`)).body[0];
      assert.equal(after.status, 'online');
      assert.equal(after.last_heartbeat, new Date(t.clock.now()).toISOString());
    });

    it('answers 422 when no reading is accepted, and refuses batches over 1000', async () => {
      const none = await send([{ device_code: 'ghost', metric: 'temperature', value: 1 }]);
      assert.equal(none.status, 422);
      assert.deepEqual(
        none.body[0].meta.errors.map((e: { field: string }) => e.field),
        ['readings.0.device_code'],
      );
      const big = await send(
        Array.from({ length: 1001 }, () => ({ device_code: 'ghost', metric: 't', value: 1 })),
      );
      assert.equal(big.status, 422);
      assert.equal((await api.post('/api/iot/readings', { json: { readings: [] } })).status, 422);
      assert.equal((await api.post('/api/iot/readings', { json: { readings: 'many' } })).status, 422);
    });

    it('takes 1000 readings in one call', async () => {
      await device('bulk-1');
      const readings = Array.from({ length: 1000 }, (_, i) => ({
        device_code: 'bulk-1',
        metric: 'temperature',
        value: i % 50,
      }));
      const res = await send(readings);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.accepted, 1000);
    });
  });

  describe('a batch, stored whole or not at all', () => {
    // Devices outside any zone: no rule of another test reaches them.
    const loose = (code: string) => device(code, { zone_id: null });

    for (const ruled of [false, true]) {
      it(`stores the readings of several devices in the batch’s order, with roll-ups and heartbeats (${ruled ? 'a device with a rule' : 'no rule'})`, async () => {
        const [codeA, codeB] = ruled ? ['whole-ruled-a', 'whole-ruled-b'] : ['whole-a', 'whole-b'];
        const a = await loose(codeA);
        const b = await loose(codeB);
        if (ruled) {
          // A rule that these readings never trip: the batch goes through the rules all the same.
          await api.post('/api/iot/rules', {
            json: { metric: 'temperature', operator: 'gt', threshold: 100, device_id: a.id },
          });
        }
        const at = new Date(Date.UTC(2026, 0, 1, 10, 0, 30)).toISOString();
        const values = [1, 2, 3, 4, 5, 6];
        const res = await send([
          ...values.map((value, i) => ({
            device_code: i % 2 === 0 ? codeA : codeB,
            metric: 'temperature',
            value,
            recorded_at: at,
          })),
          { device_code: 'no-such-device', metric: 'temperature', value: 99 },
        ]);
        assert.equal(res.status, 200, res.text);
        const results = res.body.data.results;
        assert.deepEqual(
          results.map((r: { status: string }) => r.status),
          [...values.map(() => 'accepted'), 'rejected'],
        );
        // Each result's id is its own reading's.
        const stored = new Map<number, { value: number; device: number }>();
        for (const d of [a, b]) {
          for (const r of (await api.get(`/api/iot/devices/${d.id}/readings`)).body)
            stored.set(r.id, { value: r.value, device: d.id });
        }
        assert.deepEqual(
          results.slice(0, values.length).map((r: { reading_id: number }) => stored.get(r.reading_id)),
          values.map((value, i) => ({ value, device: i % 2 === 0 ? a.id : b.id })),
        );
        for (const [d, sum] of [
          [a, 9],
          [b, 12],
        ] as const) {
          for (const bucket of ['1m', '1h', '1d']) {
            const series = await api.get(
              `/api/iot/devices/${d.id}/readings/series?metric=temperature&bucket=${bucket}&from=${at}&to=${at}`,
            );
            assert.equal(series.status, 200, series.text);
            assert.equal(series.body.length, 1, `${bucket}: ${series.text}`);
            assert.equal(series.body[0].count, 3);
            assert.equal(series.body[0].avg, sum / 3);
          }
          const after = (await api.get(`/api/iot/devices/${d.id}`)).body[0];
          assert.equal(after.status, 'online');
          assert.equal(after.last_heartbeat, new Date(t.clock.now()).toISOString());
        }
      });
    }

    for (const ruled of [false, true]) {
      it(`leaves nothing of a batch whose last statement fails (${ruled ? 'a device with a rule' : 'no rule'})`, async () => {
        const code = ruled ? 'failing-ruled' : 'failing-plain';
        const d = await loose(code);
        if (ruled) {
          await api.post('/api/iot/rules', {
            json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
          });
        }
        // The daily roll-up, written last, is refused.
        const db = t.database.db;
        const res = await whileRefused('iot_readings_1d', 'insert', () =>
          send(
            Array.from({ length: 50 }, (_, i) => ({
              device_code: code,
              metric: 'temperature',
              value: 20 + i,
            })),
          ),
        );
        assert.equal(res.status, 500, res.text);
        assert.deepEqual((await api.get(`/api/iot/devices/${d.id}/readings`)).body, []);
        for (const table of ['iot_readings_1m', 'iot_readings_1h', 'iot_readings_1d'] as const) {
          const rows = await db
            .selectFrom(table)
            .select('bucket_start')
            .where('device_id', '=', d.id)
            .execute();
          assert.deepEqual(rows, [], table);
        }
        const after = (await api.get(`/api/iot/devices/${d.id}`)).body[0];
        assert.equal(after.last_heartbeat, null);
        assert.deepEqual((await api.get(`/api/iot/alerts?device_id=${d.id}`)).body, []);
        // The same batch goes through once nothing refuses it.
        const again = await send([{ device_code: code, metric: 'temperature', value: 40 }]);
        assert.equal(again.status, 200, again.text);
        assert.equal(again.body.data.results[0].alert_ids.length, ruled ? 1 : 0);
      });
    }
  });

  describe('under concurrency', () => {
    it('raises one alert when parallel batches cross the same threshold', async () => {
      const d = await device('parallel-1');
      await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
      });
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          send([{ device_code: 'parallel-1', metric: 'temperature', value: 40 }]),
        ),
      );
      assert.ok(answers.every((a) => a.status === 200));
      const alerts = (await api.get(`/api/iot/alerts?device_id=${d.id}`)).body;
      assert.equal(alerts.length, 1);
    });
  });
});
