// Alerts through the API: their lifecycle fields, acknowledging, the list's filters, tenants apart.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { client } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeUser } from '../../../test/support/factories.js';
import { type Api, iotFixture, makePlaces } from '../../../test/support/iot.js';
import { inlineSchemas } from '../../../test/support/openapi.js';

forEachDialect('IoT alerts', (database) => {
  const f = iotFixture(database);
  let staff: Api;
  let staffUser: { id: number; name: string };
  let ownerName: string;
  /** Alerts raised in `before`: hot1 and hot2 (critical) on edge-a, dry (warning) on edge-b. */
  const a = { hot1: 0, hot2: 0, dry: 0, theirs: 0 };
  let edgeA: { id: number };
  /** When the reading that resolved hot1 was taken. */
  let hot1ResolvedAt: string;

  const raise = async (api: Api, code: string, metric: string, value: number): Promise<number[]> => {
    f.t.clock.advance(1000);
    const res = await api.post('/api/iot/readings', {
      json: {
        readings: [
          { device_code: code, metric, value, recorded_at: new Date(f.t.clock.now()).toISOString() },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data.results[0].alert_ids;
  };
  const rule = async (api: Api, json: Record<string, unknown>) => {
    const res = await api.post('/api/iot/rules', { json: { message: '{device_code} {value}', ...json } });
    assert.equal(res.status, 201, res.text);
  };

  before(async () => {
    const user = await makeUser(f.t.database.db, f.farm, 'staff');
    staff = client(f.t.url, await loginToken(f.t.url, f.farm.code, user));
    staffUser = { id: user.id, name: (await staff.get('/api/auth/me')).body.data.user.name };
    ownerName = (await f.api.get('/api/auth/me')).body.data.user.name;
    edgeA = await f.device('edge-a');
    const edgeB = await f.device('edge-b');
    await rule(f.api, {
      metric: 'temperature',
      operator: 'gt',
      threshold: 30,
      severity: 'critical',
      device_id: edgeA.id,
    });
    await rule(f.api, {
      metric: 'humidity',
      operator: 'lt',
      threshold: 20,
      severity: 'warning',
      device_id: edgeB.id,
    });
    [a.hot1] = (await raise(f.api, 'edge-a', 'temperature', 31)) as [number];
    // Back on the normal side: the reading resolves hot1 (the rule has no clear threshold of its own).
    await raise(f.api, 'edge-a', 'temperature', 25);
    hot1ResolvedAt = new Date(f.t.clock.now()).toISOString();
    [a.hot2] = (await raise(f.api, 'edge-a', 'temperature', 33)) as [number];
    [a.dry] = (await raise(f.api, 'edge-b', 'humidity', 10)) as [number];
    // Another tenant's alert, on a device of the same code.
    const places = await makePlaces(f.otherApi);
    const theirDevice = (
      await f.otherApi.post('/api/iot/devices', { json: { code: 'edge-a', zone_id: places.zoneA.id } })
    ).body[0];
    await rule(f.otherApi, {
      metric: 'temperature',
      operator: 'gt',
      threshold: 30,
      severity: 'critical',
      device_id: theirDevice.id,
    });
    [a.theirs] = (await raise(f.otherApi, 'edge-a', 'temperature', 40)) as [number];
    assert.ok(a.hot1 && a.hot2 && a.dry && a.theirs);
  });

  const ids = async (api: Api, query = '') => {
    const res = await api.get(`/api/iot/alerts${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body.map((alert: { id: number }) => alert.id);
  };

  it('answers the lifecycle fields: active, not acknowledged', async () => {
    const [alert] = (await f.api.get(`/api/iot/alerts/${a.hot2}`)).body;
    assert.equal(alert.status, 'active');
    assert.equal(alert.resolved_at, null);
    assert.equal(alert.acknowledged_at, null);
    assert.equal(alert.acknowledged_by, null);
    assert.equal(alert.acknowledged_by_name, null);
    assert.equal(alert.device_code, 'edge-a');
    const [resolved] = (await f.api.get(`/api/iot/alerts/${a.hot1}`)).body;
    assert.equal(resolved.status, 'resolved');
    assert.equal(resolved.resolved_at, hot1ResolvedAt);
  });

  it('is acknowledged by any user, now; acknowledging again keeps the first', async () => {
    f.t.clock.advance(60_000);
    const at = new Date(f.t.clock.now()).toISOString();
    const res = await staff.post(`/api/iot/alerts/${a.hot2}/acknowledge`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.length, 1);
    const [acked] = res.body;
    assert.equal(acked.id, a.hot2);
    assert.equal(acked.acknowledged_at, at);
    assert.equal(acked.acknowledged_by, staffUser.id);
    assert.equal(acked.acknowledged_by_name, staffUser.name);
    assert.equal(acked.status, 'active');

    f.t.clock.advance(60_000);
    const again = await f.api.post(`/api/iot/alerts/${a.hot2}/acknowledge`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, [acked]);
    assert.deepEqual((await f.api.get(`/api/iot/alerts/${a.hot2}`)).body, [acked]);

    // A resolved alert can be acknowledged too, here by the owner.
    const resolved = (await f.api.post(`/api/iot/alerts/${a.hot1}/acknowledge`)).body[0];
    assert.equal(resolved.acknowledged_by_name, ownerName);
    assert.equal(resolved.status, 'resolved');
  });

  it('acknowledges concurrently once', async () => {
    const answers = await Promise.all([
      staff.post(`/api/iot/alerts/${a.dry}/acknowledge`),
      f.api.post(`/api/iot/alerts/${a.dry}/acknowledge`),
      staff.post(`/api/iot/alerts/${a.dry}/acknowledge`),
    ]);
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200],
    );
    const by = answers.map((r) => r.body[0].acknowledged_by);
    assert.ok(by.every((id) => id === by[0]));
    // Set back for the filters below (the test data is shared).
    await f.t.database.db
      .updateTable('iot_alerts')
      .set({ acknowledged_at: null, acknowledged_by: null })
      .where('id', '=', a.dry)
      .execute();
  });

  it('answers 404 for an unknown alert or another tenant’s, and changes nothing there', async () => {
    assert.equal((await f.api.post('/api/iot/alerts/999999/acknowledge')).status, 404);
    const theirs = await f.api.post(`/api/iot/alerts/${a.theirs}/acknowledge`);
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body[0].meta.status_code, 404);
    assert.equal((await f.api.get(`/api/iot/alerts/${a.theirs}`)).status, 404);
    assert.equal((await f.otherApi.get(`/api/iot/alerts/${a.theirs}`)).body[0].acknowledged_at, null);
    assert.equal((await f.api.post('/api/iot/alerts/abc/acknowledge')).status, 404);
    assert.equal((await client(f.t.url).post(`/api/iot/alerts/${a.hot2}/acknowledge`)).status, 401);
  });

  it('filters by status, device, severity and acknowledged', async () => {
    assert.deepEqual(await ids(f.api), [a.dry, a.hot2, a.hot1]);
    assert.deepEqual(await ids(f.api, '?status=active'), [a.dry, a.hot2]);
    assert.deepEqual(await ids(f.api, '?status=resolved'), [a.hot1]);
    assert.deepEqual(await ids(f.api, `?device_id=${edgeA.id}`), [a.hot2, a.hot1]);
    assert.deepEqual(await ids(f.api, '?severity=critical'), [a.hot2, a.hot1]);
    assert.deepEqual(await ids(f.api, '?severity=info'), []);
    assert.deepEqual(await ids(f.api, '?acknowledged=true'), [a.hot2, a.hot1]);
    assert.deepEqual(await ids(f.api, '?acknowledged=false'), [a.dry]);
    assert.deepEqual(await ids(staff, '?status=active&acknowledged=false'), [a.dry]);
    assert.deepEqual(await ids(f.api, '?status=active&severity=critical&acknowledged=true'), [a.hot2]);
    const counted = await f.api.get('/api/iot/alerts?status=active');
    assert.equal(counted.headers.get('x-total-count'), '2');
  });

  it('refuses bad filters, naming every field', async () => {
    const res = await f.api.get('/api/iot/alerts?status=open&severity=loud&acknowledged=maybe&device_id=x');
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body[0].meta.errors.map((e: { field: string }) => e.field).sort(), [
      'acknowledged',
      'device_id',
      'severity',
      'status',
    ]);
  });

  it('never lists another tenant’s alerts, whatever the filter', async () => {
    for (const query of ['', '?status=active', '?severity=critical', '?acknowledged=false']) {
      assert.ok(!(await ids(f.api, query)).includes(a.theirs), query);
      assert.deepEqual(await ids(f.otherApi, query), [a.theirs], query);
    }
    assert.deepEqual(await ids(f.otherApi, `?device_id=${edgeA.id}`), []);
  });

  it('is documented in OpenAPI', async () => {
    const doc = inlineSchemas((await client(f.t.url).get('/openapi.json')).body);
    const list = doc.paths['/api/iot/alerts'].get;
    for (const name of ['device_id', 'status', 'severity', 'acknowledged']) {
      assert.ok(
        list.parameters.some((p: { name: string }) => p.name === name),
        name,
      );
    }
    const ack = doc.paths['/api/iot/alerts/{id}/acknowledge'].post;
    assert.ok(ack.responses['200'] && ack.responses['404']);
    const item = JSON.stringify(list.responses['200'].content['application/json'].schema);
    for (const field of ['acknowledged_by_name', 'resolved_at', 'status'])
      assert.ok(item.includes(field), field);
  });
});
