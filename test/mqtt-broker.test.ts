// The MQTT subscriber against Mosquitto processes of this test's own: a broker that stops and starts
// again (the worker reconnects by itself; messages queued in its session meanwhile arrive), and a
// broker that refuses the password (last_error says so, without the password).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MqttSubscriber } from '../src/modules/iot/mqtt-subscriber.js';
import { systemClock } from '../src/platform/clock.js';
import { client, startTestApp, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, type TestTenant } from './support/factories.js';
import { publish, startTestBroker, type TestBroker, uniqueTopicPrefix, waitFor } from './support/mqtt.js';

const quiet = { info() {}, warn() {}, error() {} };

forEachDialect('MQTT brokers of its own', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let owner: ReturnType<typeof client>;
  let subscriber: MqttSubscriber;
  const brokers: TestBroker[] = [];
  const prefix = uniqueTopicPrefix('broker');

  before(async () => {
    t = await startTestApp(database.url, { env: { MQTT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    assert.equal((await owner.post('/api/iot/devices', { json: { code: 'probe-1' } })).status, 201);
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
  after(async () => {
    await subscriber?.stop();
    await Promise.all(brokers.map((b) => b.close()));
    await t?.close();
  });

  const source = async (id: number) => (await owner.get(`/api/iot/mqtt-sources/${id}`)).body[0];
  const temperatures = async () => {
    const device = (await owner.get('/api/iot/devices')).body.find(
      (d: { code: string }) => d.code === 'probe-1',
    );
    const list = (await owner.get(`/api/iot/devices/${device.id}/readings?metric=temperature&pageLimit=1000`))
      .body;
    return (list as { value: number }[]).map((r) => r.value).sort((a, b) => a - b);
  };
  const stored = (value: number) =>
    waitFor(
      `temperature ${value}`,
      async () => ((await temperatures()).includes(value) ? true : undefined),
      30_000,
    );

  describe('a broker that restarts', () => {
    it('shows the source disconnected, reconnects by itself, and stores what was queued and what follows', async () => {
      const broker = await startTestBroker();
      brokers.push(broker);
      const res = await owner.post('/api/iot/mqtt-sources', {
        json: { name: 'Own broker', url: broker.url, topics: [`${prefix}/+`], format: 'furrow' },
      });
      assert.equal(res.status, 201, res.text);
      const id = res.body[0].id;
      await waitFor('connected', async () => ((await source(id)).connected ? true : undefined));
      await publish(broker.url, [{ topic: `${prefix}/probe-1`, payload: { temperature: 1 } }]);
      await stored(1);

      await broker.stop();
      const down = await waitFor('disconnected', async () => {
        const s = await source(id);
        return s.connected === false && s.last_error ? s : undefined;
      });
      assert.match(down.last_error, /disconnected from the broker|connection refused by 127\.0\.0\.1/);

      await broker.start();
      // Published at once: the worker may not be back yet; the broker keeps it in the worker's session.
      await publish(broker.url, [{ topic: `${prefix}/probe-1`, payload: { temperature: 2 } }]);
      await waitFor('connected again', async () => ((await source(id)).connected ? true : undefined), 30_000);
      await stored(2);
      await publish(broker.url, [{ topic: `${prefix}/probe-1`, payload: { temperature: 3 } }]);
      await stored(3);
      assert.deepEqual(await temperatures(), [1, 2, 3]);
      assert.equal((await source(id)).last_error, null);
      await owner.delete(`/api/iot/mqtt-sources/${id}`);
    });
  });

  describe('a broker that wants a password', () => {
    it('says "not authorised" for a wrong password, never showing it, and connects once it is right', async () => {
      const broker = await startTestBroker({ users: { gateway: 'right-Pw-4471' } });
      brokers.push(broker);
      const wrong = 'wrong-Pw-9130';
      const res = await owner.post('/api/iot/mqtt-sources', {
        json: {
          name: 'Locked broker',
          url: broker.url,
          username: 'gateway',
          password: wrong,
          topics: [`${prefix}/locked/+`],
          format: 'furrow',
        },
      });
      assert.equal(res.status, 201, res.text);
      const id = res.body[0].id;
      const refused = await waitFor('the refusal', async () => {
        const s = await source(id);
        return /not authorised/.test(s.last_error ?? '') ? s : undefined;
      });
      assert.equal(refused.connected, false);
      assert.ok(!JSON.stringify(refused).includes(wrong));
      const row = await t.database.db
        .selectFrom('iot_mqtt_sources')
        .select('last_error')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.ok(!row.last_error?.includes(wrong));

      await owner.put(`/api/iot/mqtt-sources/${id}`, { json: { password: 'right-Pw-4471' } });
      await waitFor('connected', async () => ((await source(id)).connected ? true : undefined), 30_000);
      await publish(broker.url, [{ topic: `${prefix}/locked/probe-1`, payload: { temperature: 40 } }], {
        username: 'gateway',
        password: 'right-Pw-4471',
      });
      await stored(40);
    });
  });
});
