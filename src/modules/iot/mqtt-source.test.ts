// MQTT sources through the API: owners only, the password write-only and encrypted at rest, the
// broker URL under the public-address rule, topic filters checked.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { decryptPassword } from './mqtt-source.service.js';

const PASSWORD = 'broker-pw-Zq81x';

forEachDialect('MQTT sources API', (database) => {
  let t: TestApp;
  let farm: TestTenant;
  let owner: ReturnType<typeof client>;
  let staff: ReturnType<typeof client>;
  let otherOwner: ReturnType<typeof client>;
  let logs = '';

  before(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logs += chunk;
        done();
      },
    });
    t = await startTestApp(database.url, {
      env: { MQTT_ALLOW_PRIVATE_HOSTS: '127.0.0.1' },
      logger: { level: 'trace', stream },
    });
    farm = await makeTenant(t.database.db);
    const other = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    staff = client(t.url, await loginToken(t.url, farm.code, await makeUser(t.database.db, farm, 'staff')));
    otherOwner = client(t.url, await loginToken(t.url, other.code, other.owner));
  });
  after(() => t?.close());

  const valid = (extra: Record<string, unknown> = {}) => ({
    name: 'Farm broker',
    url: 'mqtt://127.0.0.1:1883',
    topics: ['farm/sensors/+'],
    format: 'furrow',
    ...extra,
  });
  const storedRow = (id: number) =>
    t.database.db.selectFrom('iot_mqtt_sources').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const fields = (res: { body: any }) => res.body[0].meta.errors.map((e: { field: string }) => e.field);

  describe('create, read, change, delete', () => {
    it('creates a source; the password is encrypted at rest and never answered', async () => {
      const res = await owner.post('/api/iot/mqtt-sources', {
        json: valid({ username: 'farm', password: PASSWORD }),
      });
      assert.equal(res.status, 201, res.text);
      const created = res.body[0];
      assert.equal(res.headers.get('location'), `/api/iot/mqtt-sources/${created.id}`);
      assert.deepEqual(Object.keys(created).sort(), [
        'connected',
        'created_at',
        'enabled',
        'format',
        'has_password',
        'id',
        'last_error',
        'last_message_at',
        'name',
        'topics',
        'updated_at',
        'url',
        'username',
      ]);
      assert.equal(created.has_password, true);
      assert.equal(created.enabled, true);
      assert.equal(created.connected, false);
      assert.equal(created.last_message_at, null);
      assert.deepEqual(created.topics, ['farm/sensors/+']);
      assert.ok(!res.text.includes(PASSWORD));

      const row = await storedRow(created.id);
      assert.ok(row.password_encrypted);
      assert.ok(!row.password_encrypted.includes(PASSWORD));
      assert.equal(
        decryptPassword(t.config.secretKey!, farm.id, created.id, row.password_encrypted),
        PASSWORD,
      );
      // The ciphertext is bound to its row: under another id it does not decrypt.
      assert.throws(() =>
        decryptPassword(t.config.secretKey!, farm.id, created.id + 1, row.password_encrypted!),
      );

      const detail = await owner.get(`/api/iot/mqtt-sources/${created.id}`);
      assert.deepEqual(detail.body, [created]);
      const list = await owner.get('/api/iot/mqtt-sources');
      assert.ok(list.body.some((s: { id: number }) => s.id === created.id));
      assert.ok(!detail.text.includes(PASSWORD) && !list.text.includes(PASSWORD));
      assert.ok(!logs.includes(PASSWORD), 'the password is not logged');
    });

    it('keeps the password on a change without one, replaces it, and clears it with null', async () => {
      const id = (await owner.post('/api/iot/mqtt-sources', { json: valid({ password: PASSWORD }) })).body[0]
        .id;
      const before = (await storedRow(id)).password_encrypted;
      const renamed = await owner.put(`/api/iot/mqtt-sources/${id}`, {
        json: { name: 'Renamed', enabled: false },
        headers: { prefer: 'return=representation' },
      });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body[0].name, 'Renamed');
      assert.equal(renamed.body[0].enabled, false);
      assert.equal(renamed.body[0].has_password, true);
      assert.equal((await storedRow(id)).password_encrypted, before);

      await owner.put(`/api/iot/mqtt-sources/${id}`, { json: { password: 'another-one' } });
      const replaced = (await storedRow(id)).password_encrypted!;
      assert.notEqual(replaced, before);
      assert.equal(decryptPassword(t.config.secretKey!, farm.id, id, replaced), 'another-one');

      const cleared = await owner.put(`/api/iot/mqtt-sources/${id}`, {
        json: { password: null, username: null },
        headers: { prefer: 'return=representation' },
      });
      assert.equal(cleared.body[0].has_password, false);
      assert.equal(cleared.body[0].username, null);
      assert.equal((await storedRow(id)).password_encrypted, null);
    });

    it('deletes a source: it leaves the list and its detail is a 404', async () => {
      const id = (await owner.post('/api/iot/mqtt-sources', { json: valid() })).body[0].id;
      assert.equal((await owner.delete(`/api/iot/mqtt-sources/${id}`)).status, 200);
      assert.equal((await owner.get(`/api/iot/mqtt-sources/${id}`)).status, 404);
      assert.ok(!(await owner.get('/api/iot/mqtt-sources')).body.some((s: { id: number }) => s.id === id));
      assert.equal((await owner.delete(`/api/iot/mqtt-sources/${id}`)).status, 404);
    });
  });

  describe('access', () => {
    it('is owner-only: staff get the 403 owner_only on every route', async () => {
      const id = (await owner.post('/api/iot/mqtt-sources', { json: valid() })).body[0].id;
      for (const res of [
        await staff.get('/api/iot/mqtt-sources'),
        await staff.post('/api/iot/mqtt-sources', { json: valid() }),
        await staff.get(`/api/iot/mqtt-sources/${id}`),
        await staff.put(`/api/iot/mqtt-sources/${id}`, { json: { name: 'x' } }),
        await staff.delete(`/api/iot/mqtt-sources/${id}`),
      ]) {
        assert.equal(res.status, 403, res.text);
        assert.equal(res.body[0].meta.code, 'owner_only');
      }
    });

    it("keeps tenants apart: another tenant's source is a 404 and never listed", async () => {
      const id = (await owner.post('/api/iot/mqtt-sources', { json: valid() })).body[0].id;
      assert.equal((await otherOwner.get(`/api/iot/mqtt-sources/${id}`)).status, 404);
      assert.equal(
        (await otherOwner.put(`/api/iot/mqtt-sources/${id}`, { json: { name: 'x' } })).status,
        404,
      );
      assert.equal((await otherOwner.delete(`/api/iot/mqtt-sources/${id}`)).status, 404);
      assert.deepEqual((await otherOwner.get('/api/iot/mqtt-sources')).body, []);
      assert.equal((await owner.get(`/api/iot/mqtt-sources/${id}`)).status, 200);
    });
  });

  describe('validation', () => {
    const refused = async (body: Record<string, unknown>) => {
      const res = await owner.post('/api/iot/mqtt-sources', { json: body });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body[0].meta.code, 'validation_failed');
      return res;
    };

    it('takes mqtt:// and mqtts:// URLs only, without credentials, path or query', async () => {
      for (const url of [
        'http://127.0.0.1:1883',
        'ws://127.0.0.1:8080',
        'mqtt://user:pw@127.0.0.1:1883',
        'mqtt://127.0.0.1:1883/path',
        'mqtt://127.0.0.1:1883?x=1',
        'not a url',
        'mqtt://127.0.\t0.1:1883',
      ]) {
        const res = await owner.post('/api/iot/mqtt-sources', {
          json: valid({ url }),
        });
        assert.equal(res.status, 422, `${url}: ${res.text}`);
        assert.deepEqual(fields(res), ['url'], url);
        assert.ok(!res.text.includes('pw@'), 'the answer does not repeat credentials');
      }
      const tls = await owner.post('/api/iot/mqtt-sources', {
        json: valid({ url: 'mqtts://127.0.0.1' }),
      });
      assert.equal(tls.status, 201, tls.text);
    });

    it('refuses brokers at private, loopback and reserved addresses unless MQTT_ALLOW_PRIVATE_HOSTS lists them', async () => {
      const cases: [string, RegExp][] = [
        ['mqtt://10.1.2.3:1883', /10\.1\.2\.3 is private \(RFC 1918\)/],
        ['mqtt://localhost:1883', /localhost is loopback/],
        ['mqtt://127.0.0.2:1883', /127\.0\.0\.2 is loopback/],
        ['mqtt://[::1]:1883', /::1 is loopback/],
        ['mqtt://169.254.169.254', /link-local/],
        ['mqtts://192.0.2.10:8883', /documentation/],
      ];
      for (const [url, message] of cases) {
        const res = await refused(valid({ url }));
        assert.deepEqual(fields(res), ['url']);
        assert.match(res.body[0].meta.errors[0].message, /points to a non-public address/);
        assert.match(res.body[0].meta.errors[0].message, message);
      }
      // Changing a source to such a URL is refused too.
      const id = (await owner.post('/api/iot/mqtt-sources', { json: valid() })).body[0].id;
      const change = await owner.put(`/api/iot/mqtt-sources/${id}`, { json: { url: 'mqtt://10.0.0.1' } });
      assert.equal(change.status, 422);
      assert.equal((await owner.get(`/api/iot/mqtt-sources/${id}`)).body[0].url, 'mqtt://127.0.0.1:1883');
    });

    it('checks topic filters: 1 to 20, wildcards filling whole levels, no two overlapping', async () => {
      assert.deepEqual(fields(await refused(valid({ topics: [] }))), ['topics']);
      const many = Array.from({ length: 21 }, (_, i) => `t/${i}`);
      assert.deepEqual(fields(await refused(valid({ topics: many }))), ['topics']);
      const bad = await refused(valid({ topics: ['ok/+', 'a/#/b', 'a+', 'x/y#'] }));
      assert.deepEqual(fields(bad), ['topics.1', 'topics.2', 'topics.3']);
      assert.deepEqual(fields(await refused(valid({ topics: ['a', ''] }))), ['topics.1']);
      const overlap = await refused(valid({ topics: ['farm/#', 'farm/a/b', 'other/+/x', 'other/y/+', 'z'] }));
      assert.deepEqual(fields(overlap), ['topics.1', 'topics.3']);
      assert.match(overlap.body[0].meta.errors[0].message, /overlaps farm\/#/);
      const ok = await owner.post('/api/iot/mqtt-sources', {
        json: valid({ topics: ['#'], format: 'chirpstack' }),
      });
      assert.equal(ok.status, 201, ok.text);
    });

    it('needs a name, a URL, topics and a known format', async () => {
      const res = await refused({ name: 'x', format: 'json', password: '' });
      assert.deepEqual(fields(res).sort(), ['format', 'password', 'topics', 'url']);
      assert.deepEqual(fields(await refused(valid({ name: '  ' }))), ['name']);
    });
  });
});
