// The alert lifecycle and the end of an outage, end to end: readings and heartbeats through the API,
// events written by the service, delivered by the real worker to a real HTTPS receiver and checked
// there as a receiver would (both signatures).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { sweepOfflineDevices } from '../src/modules/iot/offline-sweeper.js';
import { serviceSignature } from '../src/modules/webhooks/signing.js';
import { forEachDialect } from './support/databases.js';
import { webhookFixture } from './support/webhook-fixture.js';
import type { ReceivedRequest } from './support/webhook-receiver.js';

forEachDialect('alert lifecycle and device-online events reach a real receiver', (database) => {
  const f = webhookFixture(database);

  /** Checks both signatures of a message as a receiver would, and answers its envelope. */
  function verified(secret: string, request: ReceivedRequest) {
    new Webhook(secret).verify(request.body, request.headers); // throws on a bad signature
    const timestamp = request.headers['x-service-timestamp']!;
    assert.equal(request.headers['x-service-signature'], serviceSignature(secret, timestamp, request.body));
    const body = JSON.parse(request.body);
    assert.equal(request.headers['x-service-event'], body.type);
    assert.equal(body.workspace_id, f.farm.code);
    return body as { type: string; data: Record<string, any> };
  }

  /** Delivers what is due; answers the endpoint's messages received since `from`, verified. */
  async function deliver(endpoint: { secret: string; received: () => ReceivedRequest[] }, from = 0) {
    await f.worker.drain();
    return endpoint
      .received()
      .slice(from)
      .map((request) => verified(endpoint.secret, request));
  }

  async function device(code: string, extra: Record<string, unknown> = {}) {
    const res = await f.owner.post('/api/iot/devices', { json: { code, name: `Probe ${code}`, ...extra } });
    assert.equal(res.status, 201, res.text);
    return res.body[0] as { id: number; code: string };
  }

  async function rule(json: Record<string, unknown>) {
    const res = await f.owner.post('/api/iot/rules', {
      json: { metric: 'temperature', operator: 'gt', threshold: 30, severity: 'critical', ...json },
    });
    assert.equal(res.status, 201, res.text);
    return res.body[0] as { id: number };
  }

  /** Sends readings of one device, `seconds` after `start`: the per-reading results. */
  async function send(code: string, start: number, readings: [seconds: number, value: number][]) {
    const res = await f.owner.post('/api/iot/readings', {
      json: {
        readings: readings.map(([seconds, value]) => ({
          device_code: code,
          metric: 'temperature',
          value,
          recorded_at: new Date(start + seconds * 1000).toISOString(),
        })),
      },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data.results as { alert_ids: number[]; resolved_alert_ids: number[] }[];
  }

  it('raises once past the threshold, ignores the band before the clear threshold, resolves past it', async () => {
    const probe = await device('hyst-1');
    const r = await rule({ device_id: probe.id, clear_threshold: 28, message: '{device_code} hot: {value}' });
    const all = await f.endpoint();
    const raisedOnly = await f.endpoint(undefined, ['iot.alert.raised']);
    const start = f.t.clock.now() - 60_000;

    const results = [];
    for (const [i, value] of [30, 31, 29.5, 27].entries())
      results.push(...(await send('hyst-1', start, [[i * 10, value]])));
    assert.deepEqual(
      results.map((x) => [x.alert_ids.length, x.resolved_alert_ids.length]),
      [
        [0, 0], // 30 is not beyond "> 30"
        [1, 0],
        [0, 0], // between the clear threshold and the threshold: nothing
        [0, 1],
      ],
    );
    const alertId = results[1]!.alert_ids[0]!;
    assert.equal(results[3]!.resolved_alert_ids[0], alertId);

    const messages = await deliver(all);
    assert.deepEqual(
      messages.map((m) => m.type),
      ['iot.alert.raised', 'iot.alert.resolved'],
    );
    const [raised, resolved] = messages.map((m) => m.data);
    assert.deepEqual(Object.keys(raised!), [
      'alert_id',
      'device_id',
      'device_code',
      'zone_id',
      'parcel_ids',
      'metric',
      'value',
      'threshold',
      'severity',
      'message',
      'rule_id',
      'recorded_at',
    ]);
    assert.deepEqual(resolved, {
      alert_id: alertId,
      device_id: probe.id,
      device_code: 'hyst-1',
      zone_id: null,
      parcel_ids: [],
      metric: 'temperature',
      value: 31,
      threshold: 30,
      severity: 'critical',
      message: 'hyst-1 hot: 31',
      rule_id: r.id,
      recorded_at: new Date(start + 10_000).toISOString(),
      clear_threshold: 28,
      resolved_value: 27,
      resolved_at: new Date(start + 30_000).toISOString(),
    });
    assert.equal(raised!.alert_id, alertId);

    // The endpoint that chose only iot.alert.raised got the raise and not the resolution.
    assert.deepEqual(
      (await deliver(raisedOnly)).map((m) => m.type),
      ['iot.alert.raised'],
    );

    const [alert] = (await f.owner.get(`/api/iot/alerts/${alertId}`)).body;
    assert.equal(alert.status, 'resolved');
    assert.equal(alert.resolved_at, new Date(start + 30_000).toISOString());
    assert.equal(alert.value, 31);

    // Re-armed: the next crossing is a new alert.
    const [again] = await send('hyst-1', start, [[40, 35]]);
    assert.equal(again!.alert_ids.length, 1);
    assert.notEqual(again!.alert_ids[0], alertId);
    assert.deepEqual(
      (await deliver(all, 2)).map((m) => [m.type, m.data.alert_id]),
      [['iot.alert.raised', again!.alert_ids[0]]],
    );
  });

  it('raises and resolves within one batch, in the readings’ time order', async () => {
    const probe = await device('batch-1');
    await rule({ device_id: probe.id, clear_threshold: 25 });
    const all = await f.endpoint();
    const start = f.t.clock.now() - 60_000;
    // Sent out of order: 31 at 10 s raises, 26 at 20 s is in the band, 24 at 30 s resolves.
    const results = await send('batch-1', start, [
      [30, 24],
      [10, 31],
      [20, 26],
    ]);
    assert.deepEqual(
      results.map((x) => [x.alert_ids.length, x.resolved_alert_ids.length]),
      [
        [0, 1],
        [1, 0],
        [0, 0],
      ],
    );
    const messages = await deliver(all);
    assert.deepEqual(
      messages.map((m) => [m.type, m.data.alert_id]),
      [
        ['iot.alert.raised', results[1]!.alert_ids[0]],
        ['iot.alert.resolved', results[1]!.alert_ids[0]],
      ],
    );
    assert.equal(messages[1]!.data.resolved_value, 24);
  });

  it('one batch of many alerts: each endpoint gets the kinds it subscribes to and its filters pass', async () => {
    // The batch's events read the endpoints once (EndpointsOfTransaction); each event still goes
    // only where its kind and the endpoint's filters send it.
    const probe = await device('batch-2');
    await rule({ device_id: probe.id, clear_threshold: 25, severity: 'warning' });
    const raisedOnly = await f.endpoint(undefined, ['iot.alert.raised']);
    const resolvedOnly = await f.endpoint(undefined, ['iot.alert.resolved']);
    const criticalOnly = await f.endpoint(undefined, ['iot.alert.raised']);
    const set = await f.owner.put(`/api/webhooks/${criticalOnly.id}`, {
      json: { filters: { 'iot.alert.raised': { severity: ['critical'] } } },
    });
    assert.equal(set.status, 200, set.text);
    const start = f.t.clock.now() - 600_000;
    // Three crossings and their clears: three alerts raised and three resolved, in one request.
    const readings: [number, number][] = [];
    for (let i = 0; i < 3; i++) readings.push([i * 20, 31], [i * 20 + 10, 24]);
    const results = await send('batch-2', start, readings);
    const raised = results.flatMap((r) => r.alert_ids);
    assert.equal(raised.length, 3);
    assert.equal(results.flatMap((r) => r.resolved_alert_ids).length, 3);
    await f.worker.drain();
    // Sent oldest first, several at a time: the receiver may take them in another order.
    const kinds = (endpoint: { secret: string; received: () => ReceivedRequest[] }) =>
      endpoint
        .received()
        .map((request) => {
          const body = verified(endpoint.secret, request);
          return [body.type, body.data.alert_id];
        })
        .sort((a, b) => Number(a[1]) - Number(b[1]));
    assert.deepEqual(
      kinds(raisedOnly),
      raised.map((id) => ['iot.alert.raised', id]),
    );
    assert.deepEqual(
      kinds(resolvedOnly),
      raised.map((id) => ['iot.alert.resolved', id]),
    );
    assert.deepEqual(kinds(criticalOnly), []);
  });

  it('raises only once the value has stayed beyond the threshold for the minimum duration', async () => {
    const probe = await device('slow-1');
    await rule({ device_id: probe.id, min_duration_seconds: 300 });
    const all = await f.endpoint();
    const start = f.t.clock.now() - 3_600_000;
    const raisedAt = async (readings: [number, number][]) =>
      (await send('slow-1', start, readings)).map((x) => x.alert_ids.length);

    assert.deepEqual(await raisedAt([[0, 31]]), [0]); // a breach begins
    assert.deepEqual(await raisedAt([[120, 33]]), [0]); // two minutes on
    assert.deepEqual(await raisedAt([[200, 29]]), [0]); // back to normal: the pending breach ends
    assert.deepEqual(await raisedAt([[250, 31]]), [0]); // a new breach begins
    assert.deepEqual(await raisedAt([[500, 32]]), [0]); // 250 s into it
    assert.deepEqual(await raisedAt([[550, 34]]), [1]); // 300 s into it: raised
    assert.deepEqual(await raisedAt([[600, 35]]), [0]); // active: nothing more
    assert.deepEqual(
      (await deliver(all)).map((m) => [m.type, m.data.value, m.data.recorded_at]),
      [['iot.alert.raised', 34, new Date(start + 550_000).toISOString()]],
    );
    // Resolved by the first reading back past the threshold; a new breach waits its five minutes again.
    assert.deepEqual(
      (
        await send('slow-1', start, [
          [700, 30],
          [800, 40],
          [1000, 40],
          [1100, 40],
        ])
      ).map((x) => [x.alert_ids.length, x.resolved_alert_ids.length]),
      [
        [0, 1],
        [0, 0],
        [0, 0],
        [1, 0],
      ],
    );
    assert.deepEqual(
      (await deliver(all, 1)).map((m) => m.type),
      ['iot.alert.resolved', 'iot.alert.raised'],
    );
  });

  it('resolves an alert whose rule state predates the kept alert id', async () => {
    const probe = await device('legacy-1');
    const r = await rule({ device_id: probe.id });
    const all = await f.endpoint();
    const start = f.t.clock.now() - 60_000;
    const [raised] = await send('legacy-1', start, [[0, 35]]);
    // As rule states were written before they kept the active alert's id.
    await f.t.database.db
      .updateTable('iot_rule_states')
      .set({ active_alert_id: null })
      .where('rule_id', '=', r.id)
      .execute();
    const [cleared] = await send('legacy-1', start, [[10, 20]]);
    assert.deepEqual(cleared!.resolved_alert_ids, raised!.alert_ids);
    assert.deepEqual(
      (await deliver(all)).map((m) => [m.type, m.data.alert_id]),
      [
        ['iot.alert.raised', raised!.alert_ids[0]],
        ['iot.alert.resolved', raised!.alert_ids[0]],
      ],
    );
  });

  it('iot.device.online: once when a device the sweeper marked offline is heard from again', async () => {
    const gate = await device('gate-9', { heartbeat_timeout_seconds: 60 });
    const field = await device('field-9', { heartbeat_timeout_seconds: 60 });
    await device('fresh-9');
    const all = await f.endpoint();
    const onlineOnly = await f.endpoint(undefined, ['iot.device.online']);
    const deps = { db: f.t.database.db, clock: f.t.clock };
    await f.owner.post('/api/iot/heartbeats', { json: { device_code: 'gate-9' } });
    await f.owner.post('/api/iot/heartbeats', { json: { device_code: 'field-9' } });
    // A device never marked offline raises nothing when first heard from.
    await f.owner.post('/api/iot/heartbeats', { json: { device_code: 'fresh-9' } });
    f.t.clock.advance(61_000);
    await sweepOfflineDevices(deps);
    const offlineAt = f.t.clock.now();
    // Only this test's devices: others of the file may go quiet as the clock moves.
    const ours = <M extends { data: Record<string, any> }>(messages: M[]) =>
      messages.filter((m) => ['gate-9', 'field-9', 'fresh-9'].includes(m.data.device_code));
    const outage = ours(await deliver(all));
    const seen = all.received().length;
    assert.deepEqual(outage.map((m) => [m.type, m.data.device_code]).sort(), [
      ['iot.device.offline', 'field-9'],
      ['iot.device.offline', 'gate-9'],
    ]);

    // Back by a heartbeat, twice: one event. Back by a reading: one event.
    f.t.clock.advance(90_500);
    const back = await f.owner.post('/api/iot/heartbeats', { json: { device_code: 'gate-9' } });
    assert.equal(back.body[0].status, 'online');
    await f.owner.post('/api/iot/heartbeats', { json: { device_code: 'gate-9' } });
    const reading = await f.owner.post('/api/iot/readings', {
      json: { readings: [{ device_code: 'field-9', metric: 'battery', value: 80 }] },
    });
    assert.equal(reading.status, 200, reading.text);
    const messages = ours(await deliver(all, seen));
    const online = messages.filter((m) => m.type === 'iot.device.online');
    assert.deepEqual(
      messages.map((m) => m.type),
      ['iot.device.online', 'iot.device.online'],
    );
    assert.deepEqual(online[0]!.data, {
      device_id: gate.id,
      device_code: 'gate-9',
      device_name: 'Probe gate-9',
      zone_id: null,
      parcel_ids: [],
      offline_since: new Date(offlineAt).toISOString(),
      online_at: new Date(offlineAt + 90_500).toISOString(),
      offline_seconds: 90,
    });
    assert.equal(online[1]!.data.device_id, field.id);
    // The endpoint that chose only iot.device.online got exactly those, and no offline message.
    assert.deepEqual(
      ours(await deliver(onlineOnly)).map((m) => [m.type, m.data.device_code]),
      [
        ['iot.device.online', 'gate-9'],
        ['iot.device.online', 'field-9'],
      ],
    );
  });

  if (database.dialect === 'postgres') {
    it('raises one iot.device.online when heartbeats race on PostgreSQL', async () => {
      await device('race-online', { heartbeat_timeout_seconds: 30 });
      const all = await f.endpoint(undefined, ['iot.device.online']);
      await f.owner.post('/api/iot/heartbeats', { json: { device_code: 'race-online' } });
      f.t.clock.advance(31_000);
      await sweepOfflineDevices({ db: f.t.database.db, clock: f.t.clock });
      const [row] = (await f.owner.get('/api/iot/devices?pageLimit=100')).body.filter(
        (d: { code: string }) => d.code === 'race-online',
      );
      assert.equal(row.status, 'offline');
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          i % 2 === 0
            ? f.owner.post('/api/iot/heartbeats', { json: { device_code: 'race-online' } })
            : f.owner.post('/api/iot/readings', {
                json: { readings: [{ device_code: 'race-online', metric: 'battery', value: i }] },
              }),
        ),
      );
      assert.ok(answers.every((a) => a.status === 200 || a.status === 201));
      assert.deepEqual(
        (await deliver(all)).filter((m) => m.data.device_code === 'race-online').map((m) => m.type),
        ['iot.device.online'],
      );
    });
  }
});
