// Who may change the sensors: owners add, change and delete devices and rules; staff read them,
// and still send readings and heartbeats (a gateway uses a staff account) and acknowledge alerts.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { client } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeUser } from '../../../test/support/factories.js';
import { type Api, iotFixture } from '../../../test/support/iot.js';

forEachDialect('IoT devices and rules: owner writes', (database) => {
  const f = iotFixture(database);
  let staff: Api;
  let deviceId: number;
  let ruleId: number;

  before(async () => {
    const user = await makeUser(f.t.database.db, f.farm, 'staff');
    staff = client(f.t.url, await loginToken(f.t.url, f.farm.code, user));
    deviceId = (await f.device('owner-writes-1')).id;
    const rule = await f.api.post('/api/iot/rules', {
      json: {
        device_id: deviceId,
        metric: 'temperature',
        operator: 'gt',
        threshold: 30,
        severity: 'critical',
      },
    });
    assert.equal(rule.status, 201, rule.text);
    ruleId = rule.body[0].id;
  });

  const refused = (res: { status: number; body: any }) => {
    assert.equal(res.status, 403);
    assert.equal(res.body[0].meta.message, 'Only the farm owner can do this');
  };

  describe('staff', () => {
    it('read devices and rules', async () => {
      assert.deepEqual(
        (await staff.get('/api/iot/devices')).body.map((d: { id: number }) => d.id),
        [deviceId],
      );
      assert.equal((await staff.get(`/api/iot/devices/${deviceId}`)).body[0].code, 'owner-writes-1');
      assert.deepEqual(
        (await staff.get('/api/iot/rules')).body.map((r: { id: number }) => r.id),
        [ruleId],
      );
      assert.equal((await staff.get(`/api/iot/rules/${ruleId}`)).status, 200);
    });

    it('are refused adding, changing and deleting devices and rules, and nothing changes', async () => {
      refused(await staff.post('/api/iot/devices', { json: { code: 'staff-made' } }));
      refused(await staff.put(`/api/iot/devices/${deviceId}`, { json: { name: 'Renamed' } }));
      refused(await staff.delete(`/api/iot/devices/${deviceId}`));
      refused(
        await staff.post('/api/iot/rules', {
          json: { device_id: deviceId, metric: 'humidity', operator: 'lt', threshold: 20 },
        }),
      );
      refused(await staff.put(`/api/iot/rules/${ruleId}`, { json: { threshold: 99 } }));
      refused(await staff.delete(`/api/iot/rules/${ruleId}`));

      const devices = (await f.api.get('/api/iot/devices')).body;
      assert.deepEqual(
        devices.map((d: { code: string; name: string }) => [d.code, d.name]),
        [['owner-writes-1', 'owner-writes-1']],
      );
      const rules = (await f.api.get('/api/iot/rules')).body;
      assert.deepEqual(
        rules.map((r: { id: number; threshold: number }) => [r.id, r.threshold]),
        [[ruleId, 30]],
      );
    });

    it('send readings and heartbeats and acknowledge the alert they raise', async () => {
      const sent = await staff.post('/api/iot/readings', {
        json: { readings: [{ device_code: 'owner-writes-1', metric: 'temperature', value: 31 }] },
      });
      assert.equal(sent.status, 200, sent.text);
      const [alertId] = sent.body.data.results[0].alert_ids;
      assert.equal(typeof alertId, 'number');
      assert.equal(
        (await staff.post('/api/iot/heartbeats', { json: { device_code: 'owner-writes-1' } })).status,
        200,
      );
      const acked = await staff.post(`/api/iot/alerts/${alertId}/acknowledge`);
      assert.equal(acked.status, 200, acked.text);
      assert.notEqual(acked.body[0].acknowledged_at, null);
    });
  });

  describe('owners', () => {
    it('change and delete devices and rules', async () => {
      assert.equal((await f.api.put(`/api/iot/rules/${ruleId}`, { json: { threshold: 35 } })).status, 200);
      assert.equal((await f.api.delete(`/api/iot/rules/${ruleId}`)).status, 200);
      assert.equal(
        (await f.api.put(`/api/iot/devices/${deviceId}`, { json: { name: 'Probe' } })).status,
        200,
      );
      assert.equal((await f.api.delete(`/api/iot/devices/${deviceId}`)).status, 200);
      assert.deepEqual((await f.api.get('/api/iot/devices')).body, []);
    });
  });
});
