// `furrow serve` with SMTP_URL: a critical alert sent over HTTP reaches a real SMTP server by itself,
// through the mail worker of the background work; the start-up log names the server, never its password.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { client } from './support/app.js';
import { loginToken } from './support/factories.js';
import { runFurrow, startFurrow } from './support/processes.js';
import { startSmtpSink } from './support/smtp-sink.js';

describe('e-mail in furrow serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-mail-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('sends a critical alert to the chosen user on its own, logging no password', async () => {
    const sink = await startSmtpSink({ user: 'furrow', password: 'sm7p-Secret' });
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'furrow.db')}`,
      FURROW_SECRET_KEY: 'ce'.repeat(32),
      SMTP_URL: sink.url,
      MAIL_FROM: 'Green Valley <alerts@green.test>',
      LOG_LEVEL: 'info',
    };
    const created = await runFurrow(
      [
        'tenant',
        'create',
        '--code',
        'green',
        '--name',
        'Green Valley',
        '--owner',
        'owner',
        '--password',
        'green-password',
      ],
      { env },
    );
    assert.equal(created.code, 0, created.stderr);
    const server = await startFurrow(['serve'], { env });
    try {
      const api = client(
        server.url,
        await loginToken(server.url, 'green', { username: 'owner', password: 'green-password' }),
      );
      const me = await api.put('/api/account', { json: { email: 'owner@green.test', language: 'vi' } });
      assert.equal(me.status, 200, me.text);
      const chosen = await api.put('/api/notifications/settings', {
        json: { email: { enabled: true, user_ids: [me.body.data.id] } },
      });
      assert.equal(chosen.status, 200, chosen.text);
      assert.equal(chosen.body.data.smtp_configured, true);
      const device = (await api.post('/api/iot/devices', { json: { code: 'tank-1', name: 'Water tank' } }))
        .body[0];
      const rule = await api.post('/api/iot/rules', {
        json: {
          metric: 'level',
          operator: 'lt',
          threshold: 10,
          severity: 'critical',
          device_id: device.id,
          message: 'Tank low',
        },
      });
      assert.equal(rule.status, 201, rule.text);
      const sent = await api.post('/api/iot/readings', {
        json: { readings: [{ device_code: 'tank-1', metric: 'level', value: 4 }] },
      });
      assert.equal(sent.status, 200, sent.text);
      const [mail] = await sink.waitFor(1, 20_000);
      assert.deepEqual(mail!.rcptTo, ['owner@green.test']);
      assert.equal(mail!.subject, 'Cảnh báo nghiêm trọng: level = 4 (< 10) tại Water tank (tank-1)');
      assert.match(mail!.headers.from!, /alerts@green\.test/);
      assert.match(mail!.text, /ngưỡng: dưới 10/);
    } finally {
      assert.equal(await server.stop(), 0);
      await sink.close();
    }
    const output = server.output();
    assert.match(output, /e-mail notifications on/);
    assert.match(output, /smtp:\/\/furrow:\*\*\*@127\.0\.0\.1/);
    assert.ok(!output.includes('sm7p-Secret'), 'the SMTP password is never logged');
  });
});
