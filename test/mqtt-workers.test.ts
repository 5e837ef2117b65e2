// Two real `furrow serve --role worker` processes on one PostgreSQL database and one broker: one
// of them holds the source, each message is stored once; when the holder dies, the other takes the
// source over once the lease expires and the messages the broker queued meanwhile are stored; a
// worker stopped with SIGTERM gives its lease back.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client, startTestApp, TEST_SECRET_KEY_HEX, type TestApp } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken, makeTenant, type TestTenant } from './support/factories.js';
import { forgetSessions, publish, SHARED_BROKER_URL, uniqueTopicPrefix, waitFor } from './support/mqtt.js';
import { type ServerProcess, startFurrowWorker } from './support/processes.js';

forEachDialect('MQTT worker processes', (database) => {
  // SQLite is one process by design; several workers sharing a database is the PostgreSQL set-up.
  if (database.dialect !== 'postgres') return;

  let t: TestApp;
  let farm: TestTenant;
  let owner: ReturnType<typeof client>;
  const workers: ServerProcess[] = [];
  const prefix = uniqueTopicPrefix('workers');

  before(async () => {
    t = await startTestApp(database.url, { env: { MQTT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    assert.equal((await owner.post('/api/iot/devices', { json: { code: 'probe-1' } })).status, 201);
  });
  const sourceIds: number[] = [];
  after(async () => {
    try {
      await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      await forgetSessions(SHARED_BROKER_URL, farm.code, sourceIds);
    } finally {
      await t?.close();
    }
  });

  const leaseOf = async (id: number) =>
    t.database.db
      .selectFrom('iot_mqtt_sources')
      .select(['lease_owner', 'lease_until'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const values = async () => {
    const rows = await t.database.db
      .selectFrom('iot_readings')
      .select('value')
      .where('tenant_id', '=', farm.id)
      .where('metric', '=', 'count')
      .execute();
    return rows.map((r) => r.value);
  };
  const send = (from: number, to: number) =>
    publish(
      SHARED_BROKER_URL,
      Array.from({ length: to - from }, (_, i) => ({
        topic: `${prefix}/probe-1`,
        payload: { count: from + i },
      })),
    );
  const storedOnce = async (count: number) => {
    await waitFor(
      `${count} readings`,
      async () => ((await values()).length >= count ? true : undefined),
      60_000,
    );
    // Anything stored twice would have arrived by now.
    await new Promise((r) => setTimeout(r, 1500));
    const got = (await values()).sort((a, b) => a - b);
    assert.deepEqual(
      got,
      Array.from({ length: count }, (_, i) => i),
    );
  };

  it('two workers: one holds the source, every message is stored once, a dead holder is taken over', async () => {
    const env = {
      DATABASE_URL: database.url,
      FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX,
      MQTT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'info',
    };
    workers.push(...(await Promise.all([startFurrowWorker([], { env }), startFurrowWorker([], { env })])));
    const res = await owner.post('/api/iot/mqtt-sources', {
      json: { name: 'Shared broker', url: SHARED_BROKER_URL, topics: [`${prefix}/+`], format: 'furrow' },
    });
    assert.equal(res.status, 201, res.text);
    const id = res.body[0].id;
    sourceIds.push(id);
    await waitFor(
      'connected',
      async () => ((await owner.get(`/api/iot/mqtt-sources/${id}`)).body[0].connected ? true : undefined),
      30_000,
    );

    await send(0, 100);
    await storedOnce(100);

    // The holder dies; the broker queues what is published meanwhile in the source's session.
    const lease = await leaseOf(id);
    const holder = workers.find((w) => lease.lease_owner?.includes(`:${w.child.pid}:`));
    const other = workers.find((w) => w !== holder);
    assert.ok(holder && other, `a worker holds the lease (${lease.lease_owner})`);
    holder.child.kill('SIGKILL');
    await holder.stop();
    await send(100, 150);
    await waitFor(
      'the other worker holding the source',
      async () => ((await leaseOf(id)).lease_owner?.includes(`:${other.child.pid}:`) ? true : undefined),
      40_000,
    );
    await storedOnce(150);

    // SIGTERM: the worker ends cleanly and gives the lease back.
    assert.equal(await other.stop('SIGTERM'), 0, other.output());
    assert.equal((await leaseOf(id)).lease_owner, null);
    assert.equal((await owner.get(`/api/iot/mqtt-sources/${id}`)).body[0].connected, false);
    assert.ok(!other.output().includes('"password"'));
  });
});
