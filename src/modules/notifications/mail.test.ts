// E-mail notifications end to end: settings through real HTTP, mail written with the event that it
// tells of, sent by the worker to a real SMTP server in this process, retried, never sent twice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiResponse, client, startTestApp, type TestApp } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeTenant, makeUser, type TestTenant } from '../../../test/support/factories.js';
import { type Api, makePlaces } from '../../../test/support/iot.js';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink.js';
import { sweepOfflineDevices } from '../iot/offline-sweeper.js';
import { isMailWriting } from './mail-switch.js';
import { createMailWorker, KEEP_FINISHED_MS, type MailWorker } from './mail-worker.js';
import { insertMail } from './notification.repository.js';

const FROM = 'Farm alerts <alerts@farm.test>';

forEachDialect('e-mail notifications', (database) => {
  let sink: SmtpSink;
  let t: TestApp;
  let farm: TestTenant;
  let owner: Api;
  let worker: MailWorker;
  let places: Awaited<ReturnType<typeof makePlaces>>;
  const people = { lan: 0, bob: 0, carl: 0, dana: 0, staff: 0 };
  let staffApi: Api;

  const mailRows = () =>
    t.database.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('tenant_id', '=', farm.id)
      .orderBy('id')
      .execute();
  const clearMail = async () => {
    await t.database.db.deleteFrom('mail_outbox').execute();
    sink.mails.length = 0;
    sink.attempts = 0;
  };
  const settings = (email: Record<string, unknown>) =>
    owner.put('/api/notifications/settings', { json: { email } });
  const addUser = async (json: Record<string, unknown>) => {
    const res = await owner.post('/api/users', { json: { password: 'long-enough-1', ...json } });
    assert.equal(res.status, 201, res.text);
    return res.body[0].id as number;
  };
  const send = async (code: string, metric: string, value: number, api = owner) => {
    t.clock.advance(1000);
    const res = await api.post('/api/iot/readings', {
      json: {
        readings: [{ device_code: code, metric, value, recorded_at: new Date(t.clock.now()).toISOString() }],
      },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data.results[0].alert_ids as number[];
  };

  before(async () => {
    sink = await startSmtpSink();
    t = await startTestApp(database.url, { env: { SMTP_URL: sink.url, MAIL_FROM: FROM } });
    worker = createMailWorker({ db: t.database.db, clock: t.clock, smtpUrl: sink.url, mailFrom: FROM });
    farm = await makeTenant(t.database.db);
    owner = client(t.url, await loginToken(t.url, farm.code, farm.owner));
    places = await makePlaces(owner);
    people.lan = await addUser({ username: 'lan', firstname: 'Lan', email: 'lan@farm.test', language: 'vi' });
    people.bob = await addUser({ username: 'bob', firstname: 'Bob', email: 'bob@farm.test', language: 'en' });
    people.carl = await addUser({ username: 'carl', email: 'carl@farm.test' });
    people.dana = await addUser({ username: 'dana' });
    const staff = await makeUser(t.database.db, farm, 'staff');
    people.staff = staff.id;
    staffApi = client(t.url, await loginToken(t.url, farm.code, staff));
    for (const [code, name] of [
      ['gh-1', 'Greenhouse sensor'],
      ['orchard-1', 'Orchard probe'],
    ] as const) {
      const res = await owner.post('/api/iot/devices', {
        json: { code, name, zone_id: places.zoneA.id, heartbeat_timeout_seconds: 60 },
      });
      assert.equal(res.status, 201, res.text);
    }
    const device = (await owner.get('/api/iot/devices')).body as { id: number; code: string }[];
    const gh = device.find((d) => d.code === 'gh-1')!;
    for (const rule of [
      { metric: 'temperature', operator: 'gt', threshold: 30, severity: 'critical' },
      { metric: 'humidity', operator: 'lt', threshold: 20, severity: 'warning' },
    ]) {
      const res = await owner.post('/api/iot/rules', {
        json: { ...rule, device_id: gh.id, message: '{device_code}: {metric} is {value}' },
      });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => {
    await worker?.stop();
    await t?.close();
    await sink?.close();
  });

  describe('settings', () => {
    it('answers the defaults, and that the server sends e-mail', async () => {
      const res = await owner.get('/api/notifications/settings');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, {
        email: { enabled: false, min_severity: 'critical', user_ids: [], recipients: [] },
        smtp_configured: true,
      });
    });

    it('keeps the chosen users and tells which have no e-mail address', async () => {
      const res = await settings({ enabled: true, user_ids: [people.lan, people.bob, people.dana] });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.email.enabled, true);
      assert.deepEqual(res.body.data.email.user_ids, [people.lan, people.bob, people.dana]);
      assert.deepEqual(
        res.body.data.email.recipients.map((r: any) => [r.user_id, r.email, r.language]),
        [
          [people.lan, 'lan@farm.test', 'vi'],
          [people.bob, 'bob@farm.test', 'en'],
          [people.dana, null, 'en'],
        ],
      );
      assert.deepEqual((await owner.get('/api/notifications/settings')).body.data.email.user_ids, [
        people.lan,
        people.bob,
        people.dana,
      ]);
    });

    it('refuses users that are not live users of the tenant, naming each', async () => {
      const other = await makeTenant(t.database.db);
      const gone = await addUser({ username: 'gone', email: 'gone@farm.test' });
      assert.equal((await owner.delete(`/api/users/${gone}`)).status, 200);
      const res = await settings({ user_ids: [people.bob, 999_999, other.owner.id, gone] });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body[0].meta.code, 'validation_failed');
      assert.deepEqual(
        res.body[0].meta.errors.map((e: any) => e.field),
        ['email.user_ids.1', 'email.user_ids.2', 'email.user_ids.3'],
      );
      assert.match(res.body[0].meta.errors[0].message, /999999/);
      assert.match(res.body[0].meta.errors[1].message, new RegExp(`\\b${other.owner.id}\\b`));
      const bad = await settings({ min_severity: 'urgent', enabled: 'maybe' });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body[0].meta.errors.map((e: any) => e.field).sort(), [
        'email.enabled',
        'email.min_severity',
      ]);
      assert.equal((await owner.put('/api/notifications/settings', { json: {} })).status, 422);
      // Nothing changed.
      const now = (await owner.get('/api/notifications/settings')).body.data.email;
      assert.deepEqual(now.user_ids, [people.lan, people.bob, people.dana]);
      assert.equal(now.min_severity, 'critical');
    });

    it('is for owners only', async () => {
      const read = await staffApi.get('/api/notifications/settings');
      assert.equal(read.status, 403);
      assert.equal(read.body[0].meta.code, 'owner_only');
      const write = await staffApi.put('/api/notifications/settings', {
        json: { email: { user_ids: [people.staff] } },
      });
      assert.equal(write.status, 403);
      assert.equal((await client(t.url, 'nope').get('/api/notifications/settings')).status, 401);
    });

    it("keeps each tenant's settings apart", async () => {
      const other = await makeTenant(t.database.db);
      const theirs = client(t.url, await loginToken(t.url, other.code, other.owner));
      const res = await theirs.get('/api/notifications/settings');
      assert.deepEqual(res.body.data.email.user_ids, []);
      assert.equal(res.body.data.email.enabled, false);
    });
  });

  describe('mail of events', () => {
    it('mails a critical alert to the chosen users with an address, each in their language', async () => {
      await clearMail();
      assert.equal(isMailWriting(), true);
      const [alertId] = await send('gh-1', 'temperature', 35.5);
      assert.ok(alertId);
      // Written with the alert, before any worker ran.
      const rows = await mailRows();
      assert.deepEqual(
        rows.map((r) => [r.kind, r.to_address, r.status]),
        [
          ['iot.alert.raised', 'lan@farm.test', 'pending'],
          ['iot.alert.raised', 'bob@farm.test', 'pending'],
        ],
      );
      assert.equal(await worker.drain(), 2);
      assert.equal(sink.mails.length, 2);
      const to = (address: string) => sink.mails.find((m) => m.rcptTo.includes(address))!;
      const vi = to('lan@farm.test');
      assert.match(
        vi.subject,
        /^Cảnh báo nghiêm trọng: temperature = 35\.5 \(> 30\) tại Greenhouse sensor \(gh-1\)$/,
      );
      assert.match(vi.text, /Thiết bị: Greenhouse sensor \(gh-1\)/);
      assert.match(vi.text, /Vị trí: Greenhouse A/);
      assert.match(vi.text, /ngưỡng: trên 30/);
      assert.match(vi.text, /Thời điểm đo: \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      assert.match(vi.headers.to!, /lan@farm\.test/);
      const en = to('bob@farm.test');
      assert.match(en.subject, /^Critical alert: temperature 35\.5 \(> 30\) on Greenhouse sensor \(gh-1\)$/);
      assert.match(en.text, /Where: Greenhouse A/);
      assert.match(en.text, /threshold: above 30/);
      assert.match(en.text, /Message: gh-1: temperature is 35\.5/);
      assert.match(en.headers.from!, /alerts@farm\.test/);
      assert.equal(
        sink.mails.some((m) => m.rcptTo.includes('carl@farm.test')),
        false,
      );
      const sent = await mailRows();
      assert.deepEqual(
        sent.map((r) => [r.status, r.attempt_count]),
        [
          ['sent', 1],
          ['sent', 1],
        ],
      );
      assert.equal(await worker.drain(), 0, 'nothing is sent twice');
    });

    it('mails nothing for an alert below the chosen severity, and mails it once it is included', async () => {
      await clearMail();
      await send('gh-1', 'humidity', 10);
      assert.deepEqual(await mailRows(), []);
      assert.equal((await settings({ min_severity: 'warning' })).status, 200);
      await send('gh-1', 'humidity', 50);
      await send('gh-1', 'humidity', 12);
      assert.equal(await worker.drain(), 2);
      assert.match(
        sink.mails.find((m) => m.rcptTo.includes('bob@farm.test'))!.subject,
        /^Warning: humidity 12 \(< 20\)/,
      );
      assert.match(
        sink.mails.find((m) => m.rcptTo.includes('lan@farm.test'))!.subject,
        /^Cảnh báo: humidity/,
      );
      assert.equal((await settings({ min_severity: 'critical' })).status, 200);
    });

    it('mails nothing while the settings are disabled', async () => {
      await clearMail();
      assert.equal((await settings({ enabled: false })).status, 200);
      await send('gh-1', 'temperature', 20);
      await send('gh-1', 'temperature', 40);
      assert.deepEqual(await mailRows(), []);
      assert.equal((await settings({ enabled: true })).status, 200);
    });

    it('mails an offline device, in each language', async () => {
      await clearMail();
      assert.equal(
        (await owner.post('/api/iot/heartbeats', { json: { device_code: 'orchard-1' } })).status,
        200,
      );
      t.clock.advance(61_000);
      await sweepOfflineDevices({ db: t.database.db, clock: t.clock });
      const rows = await mailRows();
      assert.ok(rows.length >= 2, 'gh-1 and orchard-1 may both be silent');
      assert.ok(rows.every((r) => r.kind === 'iot.device.offline'));
      await worker.drain();
      const en = sink.mails.find(
        (m) => m.rcptTo.includes('bob@farm.test') && /Orchard probe/.test(m.subject),
      )!;
      assert.equal(en.subject, 'Device offline: Orchard probe (orchard-1)');
      assert.match(en.text, /Last heard from: \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      assert.match(en.text, /Where: Greenhouse A/);
      const vi = sink.mails.find(
        (m) => m.rcptTo.includes('lan@farm.test') && /Orchard probe/.test(m.subject),
      )!;
      assert.equal(vi.subject, 'Thiết bị mất kết nối: Orchard probe (orchard-1)');
      assert.match(vi.text, /Hãy kiểm tra nguồn điện, pin và kết nối mạng/);
    });
  });

  describe('sending', () => {
    const queueMail = async (count: number, prefix: string) => {
      const now = t.clock.now();
      await insertMail(
        { db: t.database.db, tenantId: farm.id },
        Array.from({ length: count }, (_, i) => ({
          kind: 'iot.device.offline',
          to_address: `${prefix}-${i}@farm.test`,
          subject: `${prefix} ${i}`,
          text_body: `body ${i}`,
          status: 'pending' as const,
          next_attempt_at: now,
          created_at: now,
          lease_owner: null,
          lease_until: null,
          last_error: null,
          sent_at: null,
        })),
      );
    };

    it('retries a temporary refusal with backoff and delivers the mail once', async () => {
      await clearMail();
      await queueMail(1, 'retry');
      sink.refuseNext(2, 451, 'Greylisted, try again later');
      assert.equal(await worker.runOnce(), 1);
      let [row] = await mailRows();
      assert.equal(row!.status, 'pending');
      assert.equal(row!.attempt_count, 1);
      assert.equal(Number(row!.next_attempt_at), t.clock.now() + 60_000);
      assert.match(row!.last_error!, /451/);
      t.clock.advance(59_000);
      assert.equal(await worker.runOnce(), 0, 'not due before its minute');
      t.clock.advance(1_000);
      assert.equal(await worker.runOnce(), 1);
      [row] = await mailRows();
      assert.equal(Number(row!.next_attempt_at), t.clock.now() + 120_000, 'the wait doubles');
      t.clock.advance(120_000);
      assert.equal(await worker.runOnce(), 1);
      [row] = await mailRows();
      assert.equal(row!.status, 'sent');
      assert.equal(row!.attempt_count, 3);
      assert.equal(sink.attempts, 3);
      assert.equal(sink.mails.length, 1);
      t.clock.advance(3_600_000);
      assert.equal(await worker.drain(), 0);
      assert.equal(sink.mails.length, 1);
    });

    it('fails at once a mail whose recipient the server rejects for good', async () => {
      await clearMail();
      sink.rejectRecipient('reject-0@farm.test');
      await queueMail(2, 'reject');
      await worker.drain();
      const rows = await mailRows();
      assert.deepEqual(
        rows.map((r) => [r.to_address, r.status, r.attempt_count]),
        [
          ['reject-0@farm.test', 'failed', 1],
          ['reject-1@farm.test', 'sent', 1],
        ],
      );
      assert.match(rows[0]!.last_error!, /550/);
      assert.equal(rows[0]!.next_attempt_at, null);
    });

    it('gives up after a day of failures, and never logs or stores the SMTP password', async () => {
      await clearMail();
      const locked = await startSmtpSink({ user: 'furrow', password: 'right-password' });
      const wrongUrl = `smtp://furrow:s3cret-Wrong-pass@127.0.0.1:${locked.port}`;
      const lines: string[] = [];
      const log = (obj: unknown, msg: string) => lines.push(`${msg} ${JSON.stringify(obj)}`);
      const w = createMailWorker({
        db: t.database.db,
        clock: t.clock,
        smtpUrl: wrongUrl,
        mailFrom: FROM,
        logger: { info: log, warn: log, error: log },
      });
      try {
        await queueMail(3, 'locked');
        // One refused login fails the whole batch: the others are not tried against a server that refuses.
        assert.equal(await w.runOnce(), 3);
        assert.equal(locked.logins, 1);
        assert.deepEqual(
          (await mailRows()).map((r) => [r.status, r.attempt_count]),
          [
            ['pending', 1],
            ['pending', 1],
            ['pending', 1],
          ],
        );
        for (let step = 0; ; step++) {
          const [row] = await mailRows();
          if (row!.status !== 'pending') break;
          t.clock.set(Number(row!.next_attempt_at));
          assert.equal(await w.runOnce(), 3);
          assert.ok(step < 40, 'gives up');
        }
        const rows = await mailRows();
        assert.deepEqual(
          rows.map((r) => r.status),
          ['failed', 'failed', 'failed'],
        );
        const row = rows[0]!;
        // 1, 2, 4, 8, 16, 32 minutes, then hourly until a day after it was written.
        assert.equal(row.attempt_count, 29);
        assert.match(row.last_error!, /535|auth/i);
        assert.doesNotMatch(row.last_error!, /s3cret-Wrong-pass/);
        assert.ok(lines.length > 0);
        assert.ok(lines.every((line) => !line.includes('s3cret-Wrong-pass')));
        assert.equal(locked.mails.length, 0);
      } finally {
        await w.stop();
        await locked.close();
      }
    });

    it('has two workers share the queue without sending a mail twice', async () => {
      await clearMail();
      t.clock.set(Date.now());
      await queueMail(60, 'shared');
      const other = createMailWorker(
        { db: t.database.db, clock: t.clock, smtpUrl: sink.url, mailFrom: FROM },
        { batchSize: 3 },
      );
      const mine = createMailWorker(
        { db: t.database.db, clock: t.clock, smtpUrl: sink.url, mailFrom: FROM },
        { batchSize: 3 },
      );
      try {
        const counts = await Promise.all([mine.drain(), other.drain(), worker.drain()]);
        assert.equal(
          counts.reduce((a, b) => a + b, 0),
          60,
        );
        const failed = (await mailRows()).filter((r) => r.status !== 'sent');
        assert.deepEqual(failed, []);
        assert.equal(sink.mails.length, 60);
        assert.equal(new Set(sink.mails.map((m) => m.subject)).size, 60);
        assert.ok((await mailRows()).every((r) => r.status === 'sent' && r.attempt_count === 1));
      } finally {
        await Promise.all([mine.stop(), other.stop()]);
      }
    });

    it('sends by itself once started, and prunes finished mail after 30 days', async () => {
      await clearMail();
      t.clock.set(Date.now());
      await queueMail(2, 'background');
      const running = createMailWorker(
        { db: t.database.db, clock: t.clock, smtpUrl: sink.url, mailFrom: FROM },
        { pollMs: 50 },
      );
      await running.start();
      try {
        await sink.waitFor(2);
      } finally {
        await running.stop();
      }
      await queueMail(1, 'pending');
      t.clock.advance(KEEP_FINISHED_MS + 1000);
      assert.equal(await worker.prune(), 2);
      assert.deepEqual(
        (await mailRows()).map((r) => r.status),
        ['pending'],
      );
    });
  });

  describe('without SMTP_URL', () => {
    it('writes no mail at all and says the server sends none', async () => {
      await clearMail();
      t.clock.set(Date.now());
      const plain = await startTestApp(database.url, { clock: t.clock });
      try {
        assert.equal(isMailWriting(), false);
        const api = client(plain.url, await loginToken(plain.url, farm.code, farm.owner));
        const res: ApiResponse = await api.get('/api/notifications/settings');
        assert.equal(res.body.data.smtp_configured, false);
        assert.equal(res.body.data.email.enabled, true);
        await send('gh-1', 'temperature', 10, api);
        await send('gh-1', 'temperature', 45, api);
        assert.deepEqual(await mailRows(), []);
      } finally {
        await plain.close();
      }
    });
  });
});
