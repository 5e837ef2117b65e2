import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { assertErrorShape, type Client, invalidFields, seedGraph } from '../../../test/support/resources.js';
import { findEndpoint, updateEndpoint } from '../webhooks/webhook.repository.js';
import { dayIn, isTimeZone } from './today.service.js';

describe('the day of an instant in a time zone', () => {
  it('starts and ends at local midnight, DST days included', () => {
    const at = (iso: string) => Date.parse(iso);
    assert.deepEqual(dayIn(at('2026-06-15T20:00:00Z'), 'UTC'), {
      date: '2026-06-15',
      from: at('2026-06-15T00:00:00Z'),
      to: at('2026-06-16T00:00:00Z'),
    });
    assert.deepEqual(dayIn(at('2026-06-15T20:00:00Z'), 'Asia/Ho_Chi_Minh'), {
      date: '2026-06-16',
      from: at('2026-06-15T17:00:00Z'),
      to: at('2026-06-16T17:00:00Z'),
    });
    // New York moves to summer time on 2026-03-08: that day has 23 hours.
    assert.deepEqual(dayIn(at('2026-03-08T12:00:00Z'), 'America/New_York'), {
      date: '2026-03-08',
      from: at('2026-03-08T05:00:00Z'),
      to: at('2026-03-09T04:00:00Z'),
    });
    assert.deepEqual(dayIn(at('2026-11-01T04:30:00Z'), 'America/New_York'), {
      date: '2026-11-01',
      from: at('2026-11-01T04:00:00Z'),
      to: at('2026-11-02T05:00:00Z'),
    });
  });

  it('knows IANA zones and refuses others', () => {
    assert.equal(isTimeZone('Asia/Ho_Chi_Minh'), true);
    assert.equal(isTimeZone('Mars/Olympus_Mons'), false);
  });
});

forEachDialect('today', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let owner: Client;
  let staff: Client;
  let staffId: number;
  const ids: Record<string, number> = {};
  let pausedId = '';
  const NOW = Date.UTC(2026, 5, 15, 20, 0, 0);

  before(async () => {
    t = await startTestApp(database.url);
    t.clock.set(Date.UTC(2026, 0, 1));
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    const worker = await makeUser(t.database.db, farm, 'staff');
    staffId = worker.id;
    staff = client(t.url, await loginToken(t.url, farm.code, worker));
    const g = await seedGraph(owner);
    // Its seed task started in January, without an end: not today's, not overdue. Tokens are new.
    t.clock.set(NOW);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    staff = client(t.url, await loginToken(t.url, farm.code, worker));

    // Another tenant with something of every part: none of it may show in this farm's page.
    const other = await makeTenant(t.database.db);
    const otherOwner = client(t.url, await loginToken(t.url, other.code, other.owner));
    const og = await seedGraph(otherOwner);
    await otherOwner.post('/api/diary/production', {
      json: { name: 'Other overdue', start: '2026-06-15 01:00:00', end: '2026-06-15 02:00:00' },
    });
    await otherOwner.post('/api/iot/devices', {
      json: { code: 'other-dev', name: 'Other', zone_id: og.zone },
    });
    await otherOwner.post('/api/harvest/batches', {
      json: { parcel_id: og.parcel, crop_type_id: og.cropType, quantity_kg: 5 },
    });

    const task = async (name: string, json: Record<string, unknown>) => {
      const res = await owner.post('/api/diary/production', { json: { name, ...json } });
      assert.equal(res.status, 201, res.text);
      ids[name] = res.body[0].id;
    };
    await task('A', { start: '2026-06-15 08:00:00', end: '2026-06-15 10:00:00', assigned_to: staffId });
    await task('B', { start: '2026-06-15 21:00:00', end: '2026-06-15 22:00:00', assigned_to: staffId });
    await task('C', { start: '2026-06-16 09:00:00' });
    await task('D', { start: '2026-06-15 08:00:00', end: '2026-06-15 09:00:00', done: true });
    await task('E', { start: '2026-06-15 01:00:00', assigned_to: staffId });
    await task('F', { start: '2026-06-15 08:00:00', end: '2026-06-15 09:00:00' });
    await task('G', { start: '2026-06-14 08:00:00', end: '2026-06-14 09:00:00', assigned_to: farm.owner.id });
    await owner.delete(`/api/diary/production/${ids.F}`);

    const device = async (code: string) => {
      const res = await owner.post('/api/iot/devices', {
        json: { code, name: `Sensor ${code}`, zone_id: g.zone },
      });
      assert.equal(res.status, 201, res.text);
      return res.body[0].id as number;
    };
    ids.silent = await device('silent-1');
    ids.talking = await device('talking-1');
    // Three rules on one device, so that two of its alerts are active at once (one rule has at most
    // one active alert on a device); the third alert is resolved by a reading back below 30.
    for (const metric of ['temperature', 'humidity', 'wind']) {
      const created: { status: number; text: string } = await owner.post('/api/iot/rules', {
        json: { metric, operator: 'gt', threshold: 30, device_id: ids.talking, severity: 'warning' },
      });
      assert.equal(created.status, 201, created.text);
    }
    const alertIds: number[] = [];
    for (const [metric, value] of [
      ['temperature', 35],
      ['humidity', 36],
      ['wind', 37],
      ['wind', 20],
    ] as const) {
      const res = await owner.post('/api/iot/readings', {
        json: { readings: [{ device_code: 'talking-1', metric, value }] },
      });
      alertIds.push(...res.body.data.results[0].alert_ids);
      t.clock.advance(1000);
    }
    assert.equal(alertIds.length, 3);
    // A deleted device's alerts are not shown.
    ids.gone = await device('gone-1');
    await owner.post('/api/iot/rules', {
      json: { metric: 'temperature', operator: 'gt', threshold: 30, device_id: ids.gone },
    });
    const gone = await owner.post('/api/iot/readings', {
      json: { readings: [{ device_code: 'gone-1', metric: 'temperature', value: 50 }] },
    });
    assert.equal(gone.body.data.results[0].alert_ids.length, 1);
    assert.equal((await owner.delete(`/api/iot/devices/${ids.gone}`)).status, 200);
    [ids.alert1, ids.alert2, ids.alert3] = alertIds as [number, number, number];
    // The acknowledge route is not part of this change: its columns are set here.
    await t.database.db
      .updateTable('iot_alerts')
      .set({ acknowledged_at: NOW, acknowledged_by: farm.owner.id })
      .where('id', '=', ids.alert1)
      .execute();

    const batch = async (quantity: number) =>
      (
        await staff.post('/api/harvest/batches', {
          json: { parcel_id: g.parcel, crop_type_id: g.cropType, quantity_kg: quantity },
        })
      ).body[0].id as number;
    ids.waiting = await batch(120);
    const confirmed = await batch(80);
    assert.equal((await owner.post(`/api/harvest/batches/${confirmed}/confirm`)).status, 200);

    const endpoint = async () =>
      (
        await owner.post('/api/webhooks', {
          json: { url: 'https://93.184.215.14/hook', events: ['harvest.batch.created'] },
        })
      ).body.data.id as string;
    pausedId = await endpoint();
    await endpoint();
    const scope = { db: t.database.db, tenantId: farm.id };
    const row = await findEndpoint(scope, pausedId);
    assert.ok(row);
    await updateEndpoint(scope, row.id, { status: 'paused', paused_reason: 'owner' });
    t.clock.set(NOW);
  });
  after(() => t.close());

  const names = (part: { items: { name: string }[] }) => part.items.map((i) => i.name);

  it("gives owners every part: alerts, offline devices, tasks, batches and paused webhooks, this tenant's only", async () => {
    const res = await owner.get('/api/today');
    assert.equal(res.status, 200, res.text);
    const page = res.body;
    assert.equal(page.generated_at, new Date(NOW).toISOString());
    assert.deepEqual(page.day, {
      date: '2026-06-15',
      tz: 'UTC',
      starts_at: '2026-06-15T00:00:00.000Z',
      ends_at: '2026-06-16T00:00:00.000Z',
    });
    assert.equal(page.alerts.count, 2);
    assert.equal(page.alerts.unacknowledged, 1);
    assert.deepEqual(
      page.alerts.items.map((a: { id: number }) => a.id),
      [ids.alert2, ids.alert1],
      'not acknowledged first, then newest first',
    );
    const [open, acknowledged] = page.alerts.items;
    assert.equal(open.device_code, 'talking-1');
    assert.equal(open.device_name, 'Sensor talking-1');
    assert.equal(open.value, 36);
    assert.equal(open.acknowledged_at, null);
    assert.equal(acknowledged.acknowledged_by, farm.owner.id);
    assert.deepEqual(page.offline_devices, {
      count: 1,
      items: [
        {
          id: ids.silent,
          code: 'silent-1',
          name: 'Sensor silent-1',
          zone_id: page.offline_devices.items[0].zone_id,
          last_heartbeat: null,
          offline_since: null,
        },
      ],
    });
    assert.equal(page.tasks.overdue.count, 2);
    assert.deepEqual(names(page.tasks.overdue), ['A', 'G']);
    assert.ok(page.tasks.overdue.items.every((i: { overdue: boolean }) => i.overdue));
    assert.equal(page.tasks.today.count, 2);
    assert.deepEqual(names(page.tasks.today), ['E', 'B']);
    assert.equal(page.tasks.today.items[1].assigned_to, staffId);
    assert.equal(page.tasks.today.items[1].end, '2026-06-15 22:00:00');
    assert.equal(page.harvest_batches.count, 1);
    assert.equal(page.harvest_batches.items[0].id, ids.waiting);
    assert.equal(page.harvest_batches.items[0].quantity_kg, 120);
    assert.equal(page.harvest_batches.items[0].parcel_name, 'Seed parcel');
    assert.equal(page.paused_webhooks.count, 1);
    assert.equal(page.paused_webhooks.items[0].id, pausedId);
    assert.equal(page.paused_webhooks.items[0].paused_reason, 'owner');
  });

  it('computes today in tz: in Ho Chi Minh City it is already the 16th', async () => {
    const page = (await owner.get('/api/today?tz=Asia/Ho_Chi_Minh')).body;
    assert.equal(page.day.date, '2026-06-16');
    assert.deepEqual(names(page.tasks.today), ['B', 'C']);
    assert.deepEqual(names(page.tasks.overdue), ['A', 'G']);
  });

  it('gives staff only their own tasks and nothing of webhooks', async () => {
    const page = (await staff.get('/api/today')).body;
    assert.deepEqual(names(page.tasks.overdue), ['A']);
    assert.equal(page.tasks.overdue.count, 1);
    assert.deepEqual(names(page.tasks.today), ['E', 'B']);
    assert.equal(page.paused_webhooks, null);
    assert.equal(page.alerts.count, 2);
    assert.equal(page.harvest_batches.count, 1);
    const there = (await staff.get('/api/today?tz=Asia/Ho_Chi_Minh')).body;
    assert.deepEqual(names(there.tasks.today), ['B']);
  });

  it('gives at most limit items of each part, with the whole count', async () => {
    const page = (await owner.get('/api/today?limit=1')).body;
    assert.equal(page.alerts.items.length, 1);
    assert.equal(page.alerts.items[0].id, ids.alert2);
    assert.equal(page.alerts.count, 2);
    assert.deepEqual(names(page.tasks.overdue), ['A']);
    assert.equal(page.tasks.overdue.count, 2);
  });

  it('refuses a bad zone or limit with 422 naming the field, and no token with 401', async () => {
    const zone = await owner.get('/api/today?tz=Mars/Olympus_Mons');
    assert.equal(zone.status, 422);
    assert.deepEqual(invalidFields(zone.body), ['tz']);
    const both = await owner.get('/api/today?tz=not a zone&limit=51');
    assert.deepEqual(invalidFields(both.body), ['limit', 'tz']);
    assert.deepEqual(invalidFields((await owner.get('/api/today?limit=0')).body), ['limit']);
    const anonymous = await client(t.url).get('/api/today');
    assert.equal(anonymous.status, 401);
    assertErrorShape(anonymous.body, 401);
  });

  it('counts an alert acknowledged through the API as no longer waiting, and keeps it listed after the others', async () => {
    const before = (await staff.get('/api/today')).body.alerts;
    assert.deepEqual([before.count, before.unacknowledged], [2, 1]);
    const ack = await staff.post(`/api/iot/alerts/${ids.alert2}/acknowledge`);
    assert.equal(ack.status, 200, ack.text);
    const after = (await owner.get('/api/today')).body.alerts;
    assert.deepEqual([after.count, after.unacknowledged], [2, 0]);
    assert.deepEqual(
      after.items.map((a: { id: number }) => a.id),
      [ids.alert2, ids.alert1],
    );
  });
});
