// Threshold rules through the API: their target, their fields, and the alert state on a change.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { type Api, type IotFixture, iotFixture } from '../../../test/support/iot.js';

forEachDialect('IoT threshold rules', (database) => {
  const f = iotFixture(database);
  const { device, send } = f;
  let t: TestApp;
  let api: Api;
  let places: IotFixture['places'];
  before(() => {
    ({ t, api, places } = f);
  });

  describe('rules', () => {
    it('aims a rule at exactly one of a device and a zone', async () => {
      const d = await device('rule-target-1');
      const both = await api.post('/api/iot/rules', {
        json: {
          metric: 'temperature',
          operator: 'gt',
          threshold: 30,
          device_id: d.id,
          zone_id: places.zoneA.id,
        },
      });
      assert.equal(both.status, 422);
      const neither = await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30 },
      });
      assert.equal(neither.status, 422);
      const bad = await api.post('/api/iot/rules', {
        json: { metric: 'Temp C', operator: 'above', threshold: 'hot', severity: 'fatal', device_id: d.id },
      });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
        'metric',
        'operator',
        'severity',
        'threshold',
      ]);
      const ok = await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: '30.5', device_id: d.id },
      });
      assert.equal(ok.status, 201);
      assert.equal(ok.body[0].threshold, 30.5);
      assert.equal(ok.body[0].severity, 'warning');
      assert.equal(ok.body[0].zone_id, null);
    });
  });

  describe('clear threshold and minimum duration', () => {
    it('answers them, with their defaults, and takes them on create and change', async () => {
      const d = await device('rule-clear-1');
      const plain = await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: d.id },
      });
      assert.equal(plain.status, 201, plain.text);
      assert.equal(plain.body[0].clear_threshold, null);
      assert.equal(plain.body[0].min_duration_seconds, 0);
      const set = await api.post('/api/iot/rules', {
        json: {
          metric: 'temperature',
          operator: 'gt',
          threshold: 30,
          clear_threshold: 28.5,
          min_duration_seconds: 600,
          device_id: d.id,
        },
      });
      assert.equal(set.status, 201, set.text);
      assert.equal(set.body[0].clear_threshold, 28.5);
      assert.equal(set.body[0].min_duration_seconds, 600);
      const changed = await api.put(`/api/iot/rules/${set.body[0].id}`, {
        json: { clear_threshold: null, min_duration_seconds: 0 },
        headers: { prefer: 'return=representation' },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body[0].clear_threshold, null);
      assert.equal(changed.body[0].min_duration_seconds, 0);
      const read = (await api.get(`/api/iot/rules/${set.body[0].id}`)).body[0];
      assert.equal(read.clear_threshold, null);
      assert.equal(read.threshold, 30);
    });

    it('refuses a clear threshold on the alerting side with a plain message, and bad durations', async () => {
      const d = await device('rule-clear-2');
      const fieldsOf = (res: { body: any }) =>
        res.body[0].meta.errors.map((e: { field: string; message: string }) => [e.field, e.message]);
      const above = await api.post('/api/iot/rules', {
        json: { metric: 'temperature', operator: 'gt', threshold: 30, clear_threshold: 31, device_id: d.id },
      });
      assert.equal(above.status, 422, above.text);
      assert.deepEqual(fieldsOf(above), [
        [
          'clear_threshold',
          'clear_threshold must be at most the threshold (30) for operator gt: it is the value readings come back to',
        ],
      ]);
      const below = await api.post('/api/iot/rules', {
        json: { metric: 'ph', operator: 'lte', threshold: 5, clear_threshold: 4.9, device_id: d.id },
      });
      assert.equal(below.status, 422, below.text);
      assert.deepEqual(fieldsOf(below), [
        [
          'clear_threshold',
          'clear_threshold must be at least the threshold (5) for operator lte: it is the value readings come back to',
        ],
      ]);
      // In Vietnamese too.
      const vi = await api.post('/api/iot/rules', {
        json: { metric: 'ph', operator: 'lt', threshold: 5, clear_threshold: 4, device_id: d.id },
        headers: { 'accept-language': 'vi' },
      });
      assert.match(vi.body[0].meta.errors[0].message, /phải lớn hơn hoặc bằng ngưỡng \(5\)/);
      // Equal to the threshold is allowed (it is the default).
      const equal = await api.post('/api/iot/rules', {
        json: { metric: 'ph', operator: 'gte', threshold: 8, clear_threshold: 8, device_id: d.id },
      });
      assert.equal(equal.status, 201, equal.text);
      for (const bad of [-1, 86_401, 1.5, 'soon']) {
        const res = await api.post('/api/iot/rules', {
          json: { metric: 'ph', operator: 'gt', threshold: 8, min_duration_seconds: bad, device_id: d.id },
        });
        assert.equal(res.status, 422, `${bad}: ${res.text}`);
        assert.deepEqual(
          res.body[0].meta.errors.map((e: { field: string }) => e.field),
          ['min_duration_seconds'],
        );
      }
      const badClear = await api.post('/api/iot/rules', {
        json: { metric: 'ph', operator: 'gt', threshold: 8, clear_threshold: 'low', device_id: d.id },
      });
      assert.equal(badClear.status, 422);
      // A change is checked against the rule it makes: a new threshold below the clear threshold.
      const rule = (
        await api.post('/api/iot/rules', {
          json: {
            metric: 'temperature',
            operator: 'gt',
            threshold: 30,
            clear_threshold: 28,
            device_id: d.id,
          },
        })
      ).body[0];
      const moved = await api.put(`/api/iot/rules/${rule.id}`, { json: { threshold: 27 } });
      assert.equal(moved.status, 422, moved.text);
      assert.deepEqual(
        moved.body[0].meta.errors.map((e: { field: string }) => e.field),
        ['clear_threshold'],
      );
      const flipped = await api.put(`/api/iot/rules/${rule.id}`, { json: { operator: 'lt' } });
      assert.equal(flipped.status, 422, flipped.text);
      assert.equal((await api.get(`/api/iot/rules/${rule.id}`)).body[0].threshold, 30);
      const both = await api.put(`/api/iot/rules/${rule.id}`, {
        json: { threshold: 27, clear_threshold: 25 },
      });
      assert.equal(both.status, 200, both.text);
    });
  });

  describe('rule changes', () => {
    const reading = async (code: string, metric: string, value: number) => {
      t.clock.advance(1000);
      const res = await send([{ device_code: code, metric, value }]);
      assert.equal(res.status, 200, res.text);
      const [result] = res.body.data.results;
      return { raised: result.alert_ids.length, resolved: result.resolved_alert_ids.length };
    };

    it('keeps the alert state through a new text, severity or threshold: the active alert resolves by the new one', async () => {
      const d = await device('rule-change-1');
      const rule = (
        await api.post('/api/iot/rules', {
          json: { metric: 'ph', operator: 'lt', threshold: 5, device_id: d.id, zone_id: 0 },
        })
      ).body[0];
      assert.equal(rule.zone_id, null);
      const at = (value: number) => reading('rule-change-1', 'ph', value);
      assert.deepEqual(await at(4), { raised: 1, resolved: 0 });
      await api.put(`/api/iot/rules/${rule.id}`, { json: { message: 'acid soil', severity: 'critical' } });
      assert.deepEqual(await at(4.5), { raised: 0, resolved: 0 }); // still the same excursion
      await api.put(`/api/iot/rules/${rule.id}`, { json: { threshold: 4.8, clear_threshold: 5.5 } });
      assert.deepEqual(await at(4.5), { raised: 0, resolved: 0 }); // still active
      assert.deepEqual(await at(5.2), { raised: 0, resolved: 0 }); // between: nothing
      assert.deepEqual(await at(5.5), { raised: 0, resolved: 1 }); // back past the new clear threshold
      assert.deepEqual(await at(4.7), { raised: 1, resolved: 0 });
      const alerts = (await api.get(`/api/iot/alerts?device_id=${d.id}`)).body;
      assert.deepEqual(
        alerts.map((a: { status: string }) => a.status),
        ['active', 'resolved'],
      );
    });

    it('starts afresh when the metric, operator or target changes, leaving its active alert as it is', async () => {
      const d = await device('rule-change-2');
      const rule = (
        await api.post('/api/iot/rules', {
          json: { metric: 'ph', operator: 'lt', threshold: 5, device_id: d.id },
        })
      ).body[0];
      const at = (metric: string, value: number) => reading('rule-change-2', metric, value);
      assert.deepEqual(await at('ph', 4), { raised: 1, resolved: 0 });
      await api.put(`/api/iot/rules/${rule.id}`, { json: { metric: 'soil_ph' } });
      assert.deepEqual(await at('soil_ph', 4), { raised: 1, resolved: 0 }); // a new watch decides anew
      assert.deepEqual(await at('soil_ph', 6), { raised: 0, resolved: 1 }); // resolves its own alert only
      const alerts = (await api.get(`/api/iot/alerts?device_id=${d.id}`)).body;
      assert.deepEqual(
        alerts.map((a: { metric: string; status: string }) => [a.metric, a.status]),
        [
          ['soil_ph', 'resolved'],
          ['ph', 'active'],
        ],
      );
    });

    it('resolves nothing when deleted: its active alert stays active', async () => {
      const d = await device('rule-change-3');
      const rule = (
        await api.post('/api/iot/rules', {
          json: { metric: 'ph', operator: 'lt', threshold: 5, device_id: d.id },
        })
      ).body[0];
      assert.deepEqual(await reading('rule-change-3', 'ph', 4), { raised: 1, resolved: 0 });
      assert.equal((await api.delete(`/api/iot/rules/${rule.id}`)).status, 200);
      assert.deepEqual(await reading('rule-change-3', 'ph', 7), { raised: 0, resolved: 0 });
      const [alert] = (await api.get(`/api/iot/alerts?device_id=${d.id}`)).body;
      assert.equal(alert.status, 'active');
      assert.equal(alert.resolved_at, null);
    });
  });
});
