// Heartbeats racing the offline sweep, and the sweep after the service itself was away.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import type { TestTenant } from '../../../test/support/factories.js';
import { type Api, iotFixture } from '../../../test/support/iot.js';
import { openDatabase } from '../../platform/db/database.js';
import { findOverdueDevices, markDeviceOffline, recordHeartbeats } from './device.repository.js';
import { sweepOfflineDevices } from './offline-sweeper.js';

forEachDialect('IoT heartbeats and the offline sweep', (database) => {
  const f = iotFixture(database);
  const { device } = f;
  let t: TestApp;
  let farm: TestTenant;
  let api: Api;
  before(() => {
    ({ t, farm, api } = f);
  });

  describe('under concurrency', () => {
    it('lets a heartbeat that lands after the sweeper looked win over the sweeper', async () => {
      const d = await device('race-hb-1', { heartbeat_timeout_seconds: 10 });
      await api.post('/api/iot/heartbeats', { json: { device_code: 'race-hb-1' } });
      t.clock.advance(11_000);
      const seen = (await findOverdueDevices(t.database.db, t.clock.now(), 1000)).find((o) => o.id === d.id);
      assert.ok(seen);
      await api.post('/api/iot/heartbeats', { json: { device_code: 'race-hb-1' } }); // arrives meanwhile
      const scope = { db: t.database.db, tenantId: farm.id };
      assert.equal(await markDeviceOffline(scope, d.id, seen.last_heartbeat_at, t.clock.now()), false);
      assert.equal((await api.get(`/api/iot/devices/${d.id}`)).body[0].status, 'online');
    });

    it('answers the devices a heartbeat brings back from an outage, once', async () => {
      const d = await device('back-1', { heartbeat_timeout_seconds: 10 });
      const quiet = await device('back-2', { heartbeat_timeout_seconds: 10 });
      await api.post('/api/iot/heartbeats', { json: { device_code: 'back-1' } });
      const scope = { db: t.database.db, tenantId: farm.id };
      t.clock.advance(11_000);
      const [seen] = (await findOverdueDevices(t.database.db, t.clock.now(), 1000)).filter(
        (o) => o.id === d.id,
      );
      assert.ok(seen && (await markDeviceOffline(scope, d.id, seen.last_heartbeat_at, t.clock.now())));
      // back-2 was never heard from: offline, but not after an outage.
      assert.deepEqual(await recordHeartbeats(scope, [d.id, quiet.id], t.clock.now()), [d.id]);
      assert.deepEqual(await recordHeartbeats(scope, [d.id, quiet.id], t.clock.now()), []);
    });

    if (database.dialect === 'postgres') {
      it('ends the outage of a sweep that commits while a heartbeat waits for the device', async () => {
        const d = await device('race-back-1', { heartbeat_timeout_seconds: 10 });
        await api.post('/api/iot/heartbeats', { json: { device_code: 'race-back-1' } });
        t.clock.advance(11_000);
        const [seen] = (await findOverdueDevices(t.database.db, t.clock.now(), 1000)).filter(
          (o) => o.id === d.id,
        );
        assert.ok(seen);
        const second = openDatabase(database.url, { maxConnections: 2 });
        try {
          let heartbeat: Promise<number[]> | undefined;
          await t.database.db.transaction().execute(async (trx) => {
            const sweep = { db: trx, tenantId: farm.id };
            assert.ok(await markDeviceOffline(sweep, d.id, seen.last_heartbeat_at, t.clock.now()));
            // A heartbeat arrives while the sweep has not committed: it waits for the device's row.
            heartbeat = second.db
              .transaction()
              .execute((tx) => recordHeartbeats({ db: tx, tenantId: farm.id }, [d.id], t.clock.now()));
            await new Promise((resolve) => setTimeout(resolve, 300));
          });
          assert.deepEqual(await heartbeat, [d.id], 'the heartbeat ended the outage the sweep began');
        } finally {
          await second.close();
        }
        assert.equal((await api.get(`/api/iot/devices/${d.id}`)).body[0].status, 'online');
      });
    }

    it('never moves a heartbeat backwards', async () => {
      const d = await device('hb-order-1');
      await api.post('/api/iot/heartbeats', { json: { device_code: 'hb-order-1' } });
      const latest = (await api.get(`/api/iot/devices/${d.id}`)).body[0].last_heartbeat;
      await recordHeartbeats({ db: t.database.db, tenantId: farm.id }, [d.id], t.clock.now() - 60_000);
      assert.equal((await api.get(`/api/iot/devices/${d.id}`)).body[0].last_heartbeat, latest);
    });

    it('gives devices a whole timeout after the service was away before they count as silent', async () => {
      const d = await device('outage-1', { heartbeat_timeout_seconds: 60 });
      await api.post('/api/iot/heartbeats', { json: { device_code: 'outage-1' } });
      t.clock.advance(3_600_000); // the service was down for an hour
      const deps = { db: t.database.db, clock: t.clock };
      const restartedAt = t.clock.now();
      const isOffline = async () => (await api.get(`/api/iot/devices/${d.id}`)).body[0].status === 'offline';
      await sweepOfflineDevices(deps, { notBefore: restartedAt });
      assert.equal(await isOffline(), false);
      t.clock.advance(59_000);
      await sweepOfflineDevices(deps, { notBefore: restartedAt });
      assert.equal(await isOffline(), false);
      t.clock.advance(1_000);
      await sweepOfflineDevices(deps, { notBefore: restartedAt });
      assert.equal(await isOffline(), true);
    });
  });
});
