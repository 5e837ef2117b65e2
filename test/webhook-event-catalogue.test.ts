// The event catalogue against what Furrow really sends: every event kind raised through its real code
// path (a reading crossing a rule, a reading back past it, the offline sweep, a device heard again, a
// harvest confirmed, an endpoint paused), delivered by the real worker to a real HTTPS receiver, and
// each body checked against its catalogue schema; GET /api/webhooks/event-types as owners read it;
// and test messages of every kind (the catalogue example, marked test: true).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Value } from 'typebox/value';
import { sweepOfflineDevices } from '../src/modules/iot/offline-sweeper.js';
import {
  CATALOGUE_KINDS,
  catalogueEntry,
  ENDPOINT_PAUSED_EVENT_TYPE,
  envelopeSchema,
  isCatalogueKind,
} from '../src/modules/webhooks/event-catalogue.js';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../src/modules/webhooks/events.js';
import { client } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeUser } from './support/factories.js';
import { DELAYS, webhookFixture } from './support/webhook-fixture.js';
import type { ReceivedRequest } from './support/webhook-receiver.js';

const ENVELOPE_FIELDS = ['id', 'type', 'test', 'workspace_id', 'occurred_at', 'data'];

/** The body of a message, checked against its kind's catalogue schema; every field it has is documented. */
function checkedAgainstCatalogue(request: ReceivedRequest): { type: string; test?: true; data: any } {
  const body = JSON.parse(request.body);
  assert.ok(isCatalogueKind(body.type), `${body.type} is in the catalogue`);
  const entry = catalogueEntry(body.type);
  const schema = envelopeSchema(entry);
  assert.deepEqual(
    [...Value.Errors(schema, body)].map((e) => `${e.instancePath} ${e.message}`),
    [],
    `${body.type}: ${request.body}`,
  );
  assert.equal(Value.Check(schema, body), true);
  for (const key of Object.keys(body)) assert.ok(ENVELOPE_FIELDS.includes(key), `${body.type}: ${key}`);
  const documented = Object.keys(entry.data.properties);
  for (const key of Object.keys(body.data)) assert.ok(documented.includes(key), `${body.type}: data.${key}`);
  assert.equal(request.headers['x-service-event'], body.type);
  return body;
}

forEachDialect('the event catalogue and what is really sent', (database) => {
  const f = webhookFixture(database);

  it('answers the catalogue to owners, in the request’s language; staff get 403, no token 401', async () => {
    const en = await f.owner.get('/api/webhooks/event-types');
    assert.equal(en.status, 200, en.text);
    const items = en.body.data as {
      type: string;
      group: string;
      description: string;
      schema: any;
      example: any;
    }[];
    assert.deepEqual(
      items.map((i) => i.type),
      [...CATALOGUE_KINDS],
    );
    for (const kind of EVENT_TYPES)
      assert.ok(
        items.some((i) => i.type === kind),
        kind,
      );
    const raised = items.find((i) => i.type === 'iot.alert.raised')!;
    assert.equal(raised.group, 'iot');
    assert.match(raised.description, /threshold rule/);
    assert.equal(raised.schema.properties.type.const, 'iot.alert.raised');
    assert.ok(raised.schema.properties.data.required.includes('severity'));
    for (const item of items) {
      // The answered schema (plain JSON) checks the answered example, as a client would use them.
      assert.equal(Value.Check(item.schema, item.example), true, item.type);
      assert.equal(item.example.type, item.type);
    }
    const paused = items.find((i) => i.type === ENDPOINT_PAUSED_EVENT_TYPE)!;
    assert.deepEqual(Object.keys(paused.example.data), [
      'endpoint_id',
      'url',
      'description',
      'paused_reason',
      'paused_at',
      'consecutive_failures',
    ]);

    const vi = await f.owner.get('/api/webhooks/event-types', { headers: { 'accept-language': 'vi' } });
    assert.equal(vi.status, 200);
    assert.match(vi.body.data[0].description, /cảnh báo/);
    assert.deepEqual(
      vi.body.data.map((i: { schema: unknown }) => i.schema),
      items.map((i) => i.schema),
    );

    const staffUser = await makeUser(f.t.database.db, f.farm, 'staff');
    const staff = client(f.t.url, await loginToken(f.t.url, f.farm.code, staffUser));
    const refused = await staff.get('/api/webhooks/event-types');
    assert.equal(refused.status, 403);
    assert.equal(refused.body[0].meta.code, 'owner_only');
    assert.equal((await client(f.t.url).get('/api/webhooks/event-types')).status, 401);
  });

  it('every event raised through its real code path is a valid message of its catalogue kind', async () => {
    const all = await f.endpoint();
    const farm = (await f.owner.post('/api/farms', { json: { name: 'Catalogue farm' } })).body[0];
    const zone = (await f.owner.post('/api/zones', { json: { name: 'North', farm_id: farm.id } })).body[0];
    const parcel = (
      await f.owner.post('/api/parcels', {
        json: { name: 'N1', code: 'N1', farm_id: farm.id, zone_id: zone.id },
      })
    ).body[0];
    const device = async (code: string, extra: Record<string, unknown>) => {
      const res = await f.owner.post('/api/iot/devices', { json: { code, name: `Probe ${code}`, ...extra } });
      assert.equal(res.status, 201, res.text);
      return res.body[0] as { id: number };
    };
    const zoned = await device('cat-zoned', { zone_id: zone.id, parcel_ids: [parcel.id] });
    await device('cat-bare', { heartbeat_timeout_seconds: 60 });
    const rule = await f.owner.post('/api/iot/rules', {
      json: {
        device_id: zoned.id,
        metric: 'soil_moisture',
        operator: 'lt',
        threshold: 15,
        clear_threshold: 18,
        severity: 'critical',
        message: '{device_code} dry: {value}',
      },
    });
    assert.equal(rule.status, 201, rule.text);
    const start = f.t.clock.now() - 60_000;
    const readings = await f.owner.post('/api/iot/readings', {
      json: {
        readings: [
          [0, 20],
          [10, 11.5],
          [20, 19.2],
        ].map(([seconds, value]) => ({
          device_code: 'cat-zoned',
          metric: 'soil_moisture',
          value,
          recorded_at: new Date(start + seconds! * 1000).toISOString(),
        })),
      },
    });
    assert.equal(readings.status, 200, readings.text);

    // Offline by the sweep, online again by a heartbeat.
    await f.owner.post('/api/iot/heartbeats', { json: { device_code: 'cat-bare' } });
    f.t.clock.advance(61_000);
    await sweepOfflineDevices({ db: f.t.database.db, clock: f.t.clock });
    f.t.clock.advance(5_000);
    const back = await f.owner.post('/api/iot/heartbeats', { json: { device_code: 'cat-bare' } });
    assert.equal(back.body[0].status, 'online');

    // A harvest batch declared and confirmed.
    const cropType = (await f.owner.post('/api/croptype/croptype', { json: { name: 'Pepper' } })).body[0];
    const batch = await f.owner.post('/api/harvest/batches', {
      json: {
        parcel_id: parcel.id,
        crop_type_id: cropType.id,
        quantity_kg: 98.25,
        harvested_at: '2026-07-02T06:00:00Z',
      },
    });
    assert.equal(batch.status, 201, batch.text);
    assert.equal((await f.owner.post(`/api/harvest/batches/${batch.body[0].id}/confirm`)).status, 200);

    await f.worker.drain();
    const messages = all.received().map(checkedAgainstCatalogue);
    const kinds = new Set(messages.map((m) => m.type));
    for (const kind of EVENT_TYPES.filter((k) => (k as string) !== ENDPOINT_PAUSED_EVENT_TYPE)) {
      assert.ok(kinds.has(kind), `${kind} was raised and checked`);
    }
    assert.ok(messages.every((m) => m.test === undefined));
    const raised = messages.find((m) => m.type === 'iot.alert.raised')!.data;
    assert.equal(raised.zone_id, zone.id);
    assert.deepEqual(raised.parcel_ids, [parcel.id]);
    const offline = messages.find(
      (m) => m.type === 'iot.device.offline' && m.data.device_code === 'cat-bare',
    );
    assert.ok(offline);
    assert.equal(offline.data.zone_id, null); // the null branch of its schema, checked for real
  });

  it('webhook.endpoint.paused, raised by a real pause, is a valid message of its kind', {
    skip: !(EVENT_TYPES as readonly string[]).includes(ENDPOINT_PAUSED_EVENT_TYPE) && 'not raised yet',
  }, async () => {
    const watcher = await f.endpoint(undefined, ['*']);
    const failing = await f.endpoint(() => ({ status: 500 }), ['harvest.batch.created']);
    // Five deliveries that fail every attempt pause the failing endpoint.
    for (let i = 0; i < 5; i++)
      await f.emit('harvest.batch.created', catalogueEntry('harvest.batch.created').example);
    await f.worker.drain();
    for (const delay of DELAYS) {
      f.t.clock.advance(delay);
      await f.worker.drain();
    }
    assert.equal((await f.getEndpoint(failing.id)).status, 'paused');
    await f.worker.drain();
    const paused = watcher
      .received()
      .map(checkedAgainstCatalogue)
      .filter((m) => m.type === ENDPOINT_PAUSED_EVENT_TYPE);
    assert.equal(paused.length, 1);
    assert.equal(paused[0]!.data.endpoint_id, failing.id);
    assert.equal(paused[0]!.data.consecutive_failures, 5);
  });

  it('sends a test message of every kind: its catalogue example, marked test: true, one attempt', async () => {
    // An endpoint that selected one kind still receives a test of any kind.
    const ep = await f.endpoint(undefined, ['harvest.batch.created']);
    for (const kind of CATALOGUE_KINDS) {
      const res = await f.owner.post(`/api/webhooks/${ep.id}/test`, { json: { event_type: kind } });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.data.event_type, kind);
      await f.worker.drain();
      const request = ep.received().at(-1)!;
      const body = checkedAgainstCatalogue(request);
      assert.equal(body.type, kind);
      assert.equal(body.test, true);
      assert.deepEqual(body.data, catalogueEntry(kind).example);
      assert.equal(JSON.parse(request.body).id, res.body.data.id);
    }
    // Without event_type (no body at all, or an empty one): a webhook.test as always, without `test`.
    for (const options of [{}, { json: {} }]) {
      const plain = await f.owner.post(`/api/webhooks/${ep.id}/test`, options);
      assert.equal(plain.status, 202, plain.text);
      assert.equal(plain.body.data.event_type, TEST_EVENT_TYPE);
      await f.worker.drain();
      const body = JSON.parse(ep.received().at(-1)!.body);
      assert.equal(body.type, TEST_EVENT_TYPE);
      assert.equal('test' in body, false);
      assert.equal(body.data.endpoint_id, ep.id);
    }
    const log = await f.deliveries(ep.id);
    assert.equal(log.length, CATALOGUE_KINDS.length + 2);
    assert.ok(log.every((d) => d.status === 'succeeded' && d.attempt_count === 1));
    assert.equal((await f.getEndpoint(ep.id)).consecutive_failures, 0);
  });

  it('refuses an unknown kind with a 422 that lists the kinds; tests of a kind count toward the limits', async () => {
    const ep = await f.endpoint();
    for (const event_type of ['crop.created', '*', '', 'IOT.ALERT.RAISED']) {
      const res = await f.owner.post(`/api/webhooks/${ep.id}/test`, { json: { event_type } });
      assert.equal(res.status, 422, `${event_type}: ${res.text}`);
      assert.equal(res.body[0].meta.code, 'validation_failed');
      const [error] = res.body[0].meta.errors;
      assert.equal(error.field, 'event_type');
      for (const kind of [...CATALOGUE_KINDS, TEST_EVENT_TYPE]) assert.ok(error.message.includes(kind), kind);
    }
    const wrongType = await f.owner.post(`/api/webhooks/${ep.id}/test`, { json: { event_type: 7 } });
    assert.equal(wrongType.status, 422, wrongType.text);
    assert.equal(ep.received().length, 0);

    // Ten a minute per endpoint, tests of a kind included: the eleventh is a 429.
    for (let i = 0; i < 10; i++) {
      const kind = i % 2 === 0 ? 'iot.device.offline' : TEST_EVENT_TYPE;
      const res = await f.owner.post(`/api/webhooks/${ep.id}/test`, { json: { event_type: kind } });
      assert.equal(res.status, 202, res.text);
      await f.worker.drain();
    }
    const limited = await f.owner.post(`/api/webhooks/${ep.id}/test`, {
      json: { event_type: 'iot.alert.raised' },
    });
    assert.equal(limited.status, 429, limited.text);
    assert.equal(limited.body[0].meta.code, 'too_many_requests');

    // A failing receiver: a test of a kind is one attempt and never counts toward pausing.
    const failing = await f.endpoint(() => ({ status: 500 }));
    const res = await f.owner.post(`/api/webhooks/${failing.id}/test`, {
      json: { event_type: 'iot.alert.raised' },
    });
    assert.equal(res.status, 202);
    await f.worker.drain();
    f.t.clock.advance(DELAYS[0]!);
    await f.worker.drain();
    assert.equal(failing.received().length, 1);
    const [delivery] = await f.deliveries(failing.id);
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempt_count, 1);
    assert.equal((await f.getEndpoint(failing.id)).consecutive_failures, 0);
  });
});
