// An endpoint paused automatically after a streak of failed deliveries: every owner with an e-mail
// address is told, in their language, in the transaction of the pause; staff are not.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { client } from '../../../test/support/app.js';
import { forEachDialect } from '../../../test/support/databases.js';
import { loginToken, makeUser } from '../../../test/support/factories.js';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink.js';
import { DELAYS, webhookFixture } from '../../../test/support/webhook-fixture.js';
import { createMailWorker } from './mail-worker.js';

forEachDialect('e-mail to owners when an endpoint pauses', (database) => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  const f = webhookFixture(database, { env: () => ({ SMTP_URL: sink.url }) });
  after(() => sink?.close());

  it('mails each owner with an address in their language, and nobody else', async () => {
    const { t, farm, owner, worker } = f;
    // The first owner reads Vietnamese; a second owner English; a third has no address; staff are left out.
    assert.equal(
      (await owner.put('/api/account', { json: { email: 'chu@farm.test', language: 'vi' } })).status,
      200,
    );
    const second = await makeUser(t.database.db, farm, 'owner');
    const secondApi = client(t.url, await loginToken(t.url, farm.code, second));
    assert.equal((await secondApi.put('/api/account', { json: { email: 'ana@farm.test' } })).status, 200);
    await makeUser(t.database.db, farm, 'owner');
    const staff = await makeUser(t.database.db, farm, 'staff');
    const staffApi = client(t.url, await loginToken(t.url, farm.code, staff));
    assert.equal((await staffApi.put('/api/account', { json: { email: 'staff@farm.test' } })).status, 200);

    const ep = await f.endpoint(() => ({ status: 500 }));
    const described = await owner.put(`/api/webhooks/${ep.id}`, { json: { description: 'Packing house' } });
    assert.equal(described.status, 200, described.text);
    for (let i = 0; i < 5; i++) await f.emit('harvest.batch.created', { n: i });
    const mailRows = () =>
      t.database.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('tenant_id', '=', farm.id)
        .orderBy('id')
        .execute();
    await worker.drain();
    for (const delay of DELAYS) {
      assert.deepEqual(await mailRows(), [], 'no mail before the pause');
      t.clock.advance(delay);
      await worker.drain();
    }
    assert.equal((await f.getEndpoint(ep.id)).status, 'paused');
    const rows = await mailRows();
    assert.deepEqual(
      rows.map((r) => [r.kind, r.to_address]),
      [
        ['webhook.endpoint.paused', 'chu@farm.test'],
        ['webhook.endpoint.paused', 'ana@farm.test'],
      ],
    );

    const mailer = createMailWorker({
      db: t.database.db,
      clock: t.clock,
      smtpUrl: sink.url,
      mailFrom: t.config.mailFrom,
    });
    try {
      assert.equal(await mailer.drain(), 2);
    } finally {
      await mailer.stop();
    }
    const url = `${f.receiver.origin}${ep.path}`;
    const vi = sink.mails.find((m) => m.rcptTo.includes('chu@farm.test'))!;
    assert.equal(vi.subject, `Điểm nhận webhook đã bị tạm dừng: ${url}`);
    assert.match(vi.text, /Lý do: 5 lần gửi liên tiếp đều thất bại/);
    assert.match(vi.text, /Packing house/);
    assert.match(vi.text, /"Bật lại"/);
    const en = sink.mails.find((m) => m.rcptTo.includes('ana@farm.test'))!;
    assert.equal(en.subject, `Webhook endpoint paused: ${url}`);
    assert.match(en.text, /Why: 5 deliveries in a row failed every attempt\./);
    assert.match(en.text, /"Re-enable"/);
    assert.match(en.headers.from!, /furrow@localhost/);
    assert.equal(sink.mails.length, 2);

    // Enabling and pausing by hand mails nobody.
    assert.equal((await owner.post(`/api/webhooks/${ep.id}/enable`)).status, 200);
    assert.equal((await mailRows()).length, 2);
  });
});
