// The MQTT subscriber against the machine's Mosquitto: messages published by a gateway become
// readings; bad messages are refused one by one and the next goes on; changes to a source take
// effect by themselves; the public-address rule holds at connect time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import mqtt from 'mqtt';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, type TestTenant } from '../../../test/support/factories.js';
import { chirpstackEvent, lorawanFixture } from '../../../test/support/lorawan.js';
import {
  forgetSessions,
  publish,
  SHARED_BROKER_URL,
  uniqueTopicPrefix,
  waitFor,
} from '../../../test/support/mqtt.js';
import { systemClock } from '../../platform/clock.js';
import { MqttSubscriber } from './mqtt-subscriber.js';

const quiet = { info() {}, warn() {}, error() {} };

forEachDialect('MQTT subscriber', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let owner: ReturnType<typeof client>;
  let subscriber: MqttSubscriber;
  const prefix = uniqueTopicPrefix('subscriber');

  before(async () => {
    t = await startTestApp(database.url, { env: { MQTT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    for (const code of ['probe-1', 'probe-2'])
      assert.equal((await owner.post('/api/iot/devices', { json: { code } })).status, 201);
    subscriber = new MqttSubscriber(
      {
        db: t.database.db,
        clock: systemClock,
        secretKey: t.config.secretKey!,
        config: t.config,
        logger: quiet,
      },
      { pollMs: 300, leaseMs: 6000 },
    );
    await subscriber.start();
  });
  const sourceIds: number[] = [];
  after(async () => {
    try {
      await subscriber?.stop();
      await forgetSessions(SHARED_BROKER_URL, farm.code, sourceIds);
    } finally {
      await t?.close();
    }
  });

  const source = async (id: number) => (await owner.get(`/api/iot/mqtt-sources/${id}`)).body[0];
  const createSource = async (topics: string[], extra: Record<string, unknown> = {}) => {
    const res = await owner.post('/api/iot/mqtt-sources', {
      json: { name: 'Shared broker', url: SHARED_BROKER_URL, topics, format: 'furrow', ...extra },
    });
    assert.equal(res.status, 201, res.text);
    sourceIds.push(res.body[0].id);
    return res.body[0].id as number;
  };
  const connected = (id: number, want = true) =>
    waitFor(`source ${id} connected=${want}`, async () =>
      (await source(id)).connected === want ? true : undefined,
    );
  const readings = async (code: string) => {
    const device = (await owner.get('/api/iot/devices?pageLimit=100')).body.find(
      (d: { code: string }) => d.code === code,
    );
    return (await owner.get(`/api/iot/devices/${device.id}/readings?pageLimit=1000`)).body as {
      metric: string;
      value: number;
    }[];
  };
  const waitForReadings = (code: string, count: number) =>
    waitFor(`${count} readings of ${code}`, async () => {
      const list = await readings(code);
      return list.length >= count ? list : undefined;
    });

  describe('furrow format', () => {
    let id: number;
    before(async () => {
      id = await createSource([`${prefix}/a/+`]);
      await connected(id);
    });

    it('stores both payload forms as readings of the device the topic names', async () => {
      await publish(SHARED_BROKER_URL, [
        { topic: `${prefix}/a/probe-1`, payload: { temperature: 21.5, humidity: 60 } },
        {
          topic: `${prefix}/a/probe-1`,
          payload: {
            readings: [{ metric: 'soil_moisture', value: 33, recorded_at: '2026-01-02T03:04:05Z' }],
          },
        },
      ]);
      const list = await waitForReadings('probe-1', 3);
      assert.deepEqual(list.map((r) => `${r.metric}=${r.value}`).sort(), [
        'humidity=60',
        'soil_moisture=33',
        'temperature=21.5',
      ]);
      const status = await waitFor(
        'last_message_at',
        async () => (await source(id)).last_message_at ?? undefined,
      );
      assert.ok(Date.now() - Date.parse(status) < 60_000);
      assert.equal((await source(id)).last_error, null);
      assert.equal(
        (await owner.get('/api/iot/devices')).body.find((d: any) => d.code === 'probe-1').status,
        'online',
      );
    });

    it('refuses a bad message with a short last_error and goes on with the next', async () => {
      await publish(SHARED_BROKER_URL, [{ topic: `${prefix}/a/probe-2`, payload: 'not json {' }]);
      await waitFor('not-JSON error', async () =>
        /payload is not JSON/.test((await source(id)).last_error ?? '') ? true : undefined,
      );
      await publish(SHARED_BROKER_URL, [{ topic: `${prefix}/a/nobody`, payload: { temperature: 1 } }]);
      const error = await waitFor('unknown-device error', async () => {
        const text = (await source(id)).last_error ?? '';
        return /no device has the code "nobody"/.test(text) ? text : undefined;
      });
      assert.match(error, /^message on furrow-test\/.+\/a\/nobody: .*\(2 refused since connecting\)$/);
      await publish(SHARED_BROKER_URL, [
        { topic: `${prefix}/a/probe-2`, payload: { temperature: 'warm', humidity: 40 } },
        { topic: `${prefix}/a/probe-2`, payload: { temperature: 19 } },
      ]);
      const list = await waitForReadings('probe-2', 2);
      assert.deepEqual(list.map((r) => `${r.metric}=${r.value}`).sort(), ['humidity=40', 'temperature=19']);
      assert.equal((await source(id)).connected, true);
    });
  });

  describe('LoRaWAN formats', () => {
    before(async () => {
      for (const [code, devEui] of [
        ['soil-cs', '0004a30b00f1c2d3'],
        ['soil-tts', '70b3d57ed0051a2f'],
      ]) {
        const res = await owner.post('/api/iot/devices', { json: { code, dev_eui: devEui } });
        assert.equal(res.status, 201, res.text);
      }
    });

    it('reads ChirpStack integration events: readings, battery, duplicates once, unknown devices unclaimed', async () => {
      const id = await createSource([`${prefix}/cs/application/+/device/+/event/+`], {
        format: 'chirpstack',
      });
      await connected(id);
      const topic = (event: string) => `${prefix}/cs/application/17c8/device/0004a30b00f1c2d3/event/${event}`;
      const up = lorawanFixture('chirpstack-v4-up');
      await publish(SHARED_BROKER_URL, [
        { topic: topic('up'), payload: up },
        { topic: topic('up'), payload: up },
        { topic: topic('status'), payload: lorawanFixture('chirpstack-v4-status') },
      ]);
      const list = await waitForReadings('soil-cs', 6);
      assert.deepEqual(list.map((r) => `${r.metric}=${r.value}`).sort(), [
        'battery_level=87.4',
        'battery_v=3.61',
        'leak=0',
        'soil.ec=1.12',
        'soil.moisture=34.2',
        'temperature=21.5',
      ]);
      const stranger = chirpstackEvent('chirpstack-v4-up', '0004a30b00ffffff');
      await publish(SHARED_BROKER_URL, [
        { topic: topic('up').replace('0004a30b00f1c2d3', '0004a30b00ffffff'), payload: stranger },
        { topic: `${prefix}/cs/application/17c8/device/x/event/bogus`, payload: up },
      ]);
      await waitFor('the topic error', async () =>
        /unknown ChirpStack event "bogus" \(2 refused since connecting\)/.test(
          (await source(id)).last_error ?? '',
        )
          ? true
          : undefined,
      );
      const unclaimed = (await owner.get('/api/iot/unclaimed-devices')).body as { dev_eui: string }[];
      assert.ok(unclaimed.some((d) => d.dev_eui === '0004a30b00ffffff'));
      assert.equal((await readings('soil-cs')).length, 6, 'the repeated event was stored once');
    });

    it('reads The Things Stack uplink messages', async () => {
      const id = await createSource([`${prefix}/tts/v3/+/devices/+/up`], { format: 'tts' });
      await connected(id);
      await publish(SHARED_BROKER_URL, [
        {
          topic: `${prefix}/tts/v3/furrow-orchard@ttn/devices/orchard-soil-3/up`,
          payload: lorawanFixture('tts-v3-uplink'),
        },
      ]);
      const list = await waitForReadings('soil-tts', 5);
      assert.deepEqual(list.map((r) => `${r.metric}=${r.value}`).sort(), [
        'battery=3.58',
        'depths.0=12',
        'depths.1=13',
        'soil_moisture=41.5',
        'soil_temperature=18.25',
      ]);
      assert.equal((await source(id)).last_error, null);
    });
  });

  describe('changes to a source', () => {
    it('follows changed topics, disabling, re-enabling (queued messages arrive) and deleting', async () => {
      const id = await createSource([`${prefix}/b/old/+`]);
      await connected(id);
      await owner.put(`/api/iot/mqtt-sources/${id}`, { json: { topics: [`${prefix}/b/new/+`] } });
      // Published until the new subscription takes it: the old topic is no longer read.
      await waitFor('the new topic', async () => {
        await publish(SHARED_BROKER_URL, [{ topic: `${prefix}/b/new/probe-2`, payload: { pressure: 1 } }]);
        return (await readings('probe-2')).some((r) => r.metric === 'pressure') ? true : undefined;
      });
      const before = (await readings('probe-2')).length;
      await publish(SHARED_BROKER_URL, [{ topic: `${prefix}/b/old/probe-2`, payload: { wind: 3 } }]);

      await owner.put(`/api/iot/mqtt-sources/${id}`, { json: { enabled: false } });
      assert.equal((await source(id)).connected, false);
      await waitFor('the disabled source let go', async () =>
        subscriber.heldSourceIds.includes(id) ? undefined : true,
      );
      // While disabled, the broker keeps the session and queues QoS 1 messages for it.
      await publish(SHARED_BROKER_URL, [{ topic: `${prefix}/b/new/probe-2`, payload: { rain: 7 } }]);
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(!(await readings('probe-2')).some((r) => r.metric === 'rain'));
      await owner.put(`/api/iot/mqtt-sources/${id}`, { json: { enabled: true } });
      await waitFor('the queued message', async () =>
        (await readings('probe-2')).some((r) => r.metric === 'rain') ? true : undefined,
      );
      assert.ok(!(await readings('probe-2')).some((r) => r.metric === 'wind'), 'the old topic was dropped');
      assert.ok((await readings('probe-2')).length >= before + 1);

      await owner.delete(`/api/iot/mqtt-sources/${id}`);
      await waitFor('the source released', async () =>
        subscriber.heldSourceIds.includes(id) ? undefined : true,
      );
      // Its broker session is ended: a client with its id finds none (the after hook ends the probe's).
      await new Promise((r) => setTimeout(r, 1000));
      await subscriber.sessionsEnded();
      const probe = mqtt.connect(SHARED_BROKER_URL, {
        clientId: `furrow-${farm.code}-${id}`,
        clean: false,
        reconnectPeriod: 0,
      });
      const connack = await new Promise<{ sessionPresent: boolean }>((resolve, reject) => {
        probe.once('connect', resolve);
        probe.once('error', reject);
      });
      await probe.endAsync();
      assert.equal(connack.sessionPresent, false);
    });

    it('applies the public-address rule when connecting, whatever was allowed when it was saved', async () => {
      const strict = new MqttSubscriber(
        {
          db: t.database.db,
          clock: systemClock,
          secretKey: t.config.secretKey!,
          config: { mqttAllowPrivateHosts: [] },
          logger: quiet,
        },
        { pollMs: 300, leaseMs: 6000 },
      );
      // The strict worker takes what it can of this tenant's sources while the other one is away.
      await subscriber.stop();
      const id = await createSource([`${prefix}/c/+`]);
      await strict.start();
      try {
        const error = await waitFor('the refusal', async () => (await source(id)).last_error ?? undefined);
        assert.match(error, /refused to connect to 127\.0\.0\.1: not a public address \(loopback\)/);
        assert.equal((await source(id)).connected, false);
      } finally {
        await strict.stop();
        await subscriber.start();
      }
    });
  });
});

forEachDialect('MQTT subscriber leases', (database) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let farmCode: string;
  let sourceId: number | undefined;

  before(async () => {
    t = await startTestApp(database.url, { env: { MQTT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    const farm = await makeTenant(t.database.db);
    farmCode = farm.code;
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
  });
  after(async () => {
    try {
      if (sourceId !== undefined) await forgetSessions(SHARED_BROKER_URL, farmCode, [sourceId]);
    } finally {
      await t?.close();
    }
  });

  it('ends its connections when their lease ends, even when the timer fires before the clock gets there', async () => {
    // The clock this subscriber reads lags behind the timers by `lag` once the renewals fail: its
    // expiry timer then fires while the clock is still short of the end (as Node's loop time can
    // be ahead of the clock after a busy turn), and must wait for the rest rather than give up.
    let lag = 0;
    const lagging = { now: () => Date.now() - lag };
    const subscriber = new MqttSubscriber(
      { db: t.database.db, clock: lagging, secretKey: t.config.secretKey!, config: t.config, logger: quiet },
      { pollMs: 200, leaseMs: 1500 },
    );
    const res = await owner.post('/api/iot/mqtt-sources', {
      json: {
        name: 'Lease',
        url: SHARED_BROKER_URL,
        topics: [`${uniqueTopicPrefix('lease')}/+`],
        format: 'furrow',
      },
    });
    assert.equal(res.status, 201, res.text);
    sourceId = res.body[0].id as number;
    await subscriber.start();
    const renamed = sql`alter table iot_mqtt_sources rename to iot_mqtt_sources_away`;
    const restored = sql`alter table iot_mqtt_sources_away rename to iot_mqtt_sources`;
    try {
      await waitFor('the source held', async () =>
        subscriber.heldSourceIds.length === 1 ? true : undefined,
      );
      // No renewal can succeed from now on: the connection must end at its lease's end.
      await renamed.execute(t.database.db);
      lag = 400;
      // Without the wait for the rest, nothing ends it: every renewal fails.
      await waitFor('the connection ended', async () =>
        subscriber.heldSourceIds.length === 0 ? true : undefined,
      );
    } finally {
      await restored.execute(t.database.db).catch(() => {});
      await subscriber.stop();
    }
  });
});
