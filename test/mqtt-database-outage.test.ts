// PostgreSQL goes away while MQTT messages arrive: the subscriber acknowledges nothing it could not
// store, lets its connection go before its lease ends, and once the database is back takes the
// source again and stores what the broker delivers again, each message once. Runs on a cluster of
// its own (test/support/pg-cluster.ts), never on the shared server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MqttSubscriber } from '../src/modules/iot/mqtt-subscriber.js';
import { systemClock } from '../src/platform/clock.js';
import { type DatabaseHandle, openDatabase } from '../src/platform/db/database.js';
import { client, startTestApp, type TestApp } from './support/app.js';
import { loginToken, makeTenant, type TestTenant } from './support/factories.js';
import { forgetSessions, publish, SHARED_BROKER_URL, uniqueTopicPrefix, waitFor } from './support/mqtt.js';
import { type PgCluster, pgClusterSkip, startPgCluster } from './support/pg-cluster.js';

const quiet = { info() {}, warn() {}, error() {} };

describe('MQTT messages during a database outage', { skip: pgClusterSkip }, () => {
  let cluster: PgCluster;
  let t: TestApp;
  let workerDb: DatabaseHandle;
  let subscriber: MqttSubscriber;
  let farm: TestTenant;
  let sourceId: number;
  const prefix = uniqueTopicPrefix('outage');

  before(async () => {
    cluster = await startPgCluster();
    const url = await cluster.createDatabase('furrow_mqtt');
    t = await startTestApp(url, { env: { MQTT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    farm = await makeTenant(t.database.db);
    const owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    assert.equal((await owner.post('/api/iot/devices', { json: { code: 'probe-1' } })).status, 201);
    const res = await owner.post('/api/iot/mqtt-sources', {
      json: { name: 'Shared broker', url: SHARED_BROKER_URL, topics: [`${prefix}/+`], format: 'furrow' },
    });
    assert.equal(res.status, 201, res.text);
    sourceId = res.body[0].id;
    // The worker's own pool, with the short timeouts an operator would give a worker.
    workerDb = openDatabase(url, {
      maxConnections: 4,
      timeouts: { connectMs: 1000, statementMs: 2000, idleInTransactionMs: 5000 },
    });
    subscriber = new MqttSubscriber(
      {
        db: workerDb.db,
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
    try {
      await subscriber?.stop();
      if (sourceId) await forgetSessions(SHARED_BROKER_URL, farm.code, [sourceId]);
    } finally {
      await workerDb?.close();
      await t?.close();
      await cluster?.destroy();
    }
  });

  const values = async () => {
    const rows = await t.database.db
      .selectFrom('iot_readings')
      .select('value')
      .where('tenant_id', '=', farm.id)
      .execute();
    return rows.map((r) => r.value).sort((a, b) => a - b);
  };

  it('stores the messages that arrived while the database was away, each once, when it is back', async () => {
    await waitFor('the source held', async () => (subscriber.heldSourceIds.length === 1 ? true : undefined));
    await publish(SHARED_BROKER_URL, [{ topic: `${prefix}/probe-1`, payload: { count: 1 } }]);
    await waitFor('the first reading', async () => ((await values()).includes(1) ? true : undefined));

    await cluster.stop();
    await publish(SHARED_BROKER_URL, [
      { topic: `${prefix}/probe-1`, payload: { count: 2 } },
      { topic: `${prefix}/probe-1`, payload: { count: 3 } },
    ]);
    // Longer than the lease's margin: the worker lets the connection go with the messages unacknowledged.
    await waitFor('the connection let go', async () =>
      subscriber.heldSourceIds.length === 0 ? true : undefined,
    );
    await cluster.start();

    await waitFor(
      'the readings of the outage',
      async () => ((await values()).length >= 3 ? true : undefined),
      60_000,
    );
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(await values(), [1, 2, 3]);
    assert.deepEqual(subscriber.heldSourceIds.length, 1);
  });
});
