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

  describe('rule changes', () => {
    it('keeps the alert state when only the text or severity changes, and resets it for a new condition', async () => {
      const d = await device('rule-change-1');
      const rule = (
        await api.post('/api/iot/rules', {
          json: { metric: 'ph', operator: 'lt', threshold: 5, device_id: d.id, zone_id: 0 },
        })
      ).body[0];
      assert.equal(rule.zone_id, null);
      const reading = async (value: number) => {
        t.clock.advance(1000);
        const res = await send([{ device_code: 'rule-change-1', metric: 'ph', value }]);
        return res.body.data.results[0].alert_ids.length;
      };
      assert.equal(await reading(4), 1);
      await api.put(`/api/iot/rules/${rule.id}`, { json: { message: 'acid soil', severity: 'critical' } });
      assert.equal(await reading(4.5), 0); // still the same excursion
      await api.put(`/api/iot/rules/${rule.id}`, { json: { threshold: 4.8 } });
      assert.equal(await reading(4.5), 1); // a new condition decides anew
    });
  });
});
