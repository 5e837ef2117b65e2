// `furrow serve` runs the offline sweeper in its background work: a silent device goes offline by
// itself, with no request asking for it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { client } from './support/app.js';
import { loginToken } from './support/factories.js';
import { runFurrow, startFurrow } from './support/processes.js';

describe('offline sweeper in furrow serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-sweeper-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('marks a silent device offline on its own, and a heartbeat brings it back', async () => {
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'furrow.db')}`,
      FURROW_SECRET_KEY: 'cd'.repeat(32),
      IOT_SWEEP_INTERVAL_MS: '200',
    };
    const created = await runFurrow(
      [
        'tenant',
        'create',
        '--code',
        'sweep',
        '--name',
        'Sweep farm',
        '--owner',
        'owner',
        '--password',
        'sweep-password',
      ],
      { env },
    );
    assert.equal(created.code, 0, created.stderr);
    const server = await startFurrow(['serve'], { env });
    try {
      const api = client(
        server.url,
        await loginToken(server.url, 'sweep', { username: 'owner', password: 'sweep-password' }),
      );
      const device = (
        await api.post('/api/iot/devices', { json: { code: 'quiet-1', heartbeat_timeout_seconds: 10 } })
      ).body[0];
      assert.equal(
        (await api.post('/api/iot/heartbeats', { json: { device_code: 'quiet-1' } })).body[0].status,
        'online',
      );
      const deadline = Date.now() + 20_000;
      let status = 'online';
      while (status === 'online' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await api.get(`/api/iot/devices/${device.id}`)).body[0].status;
      }
      assert.equal(status, 'offline');
      assert.equal(
        (await api.post('/api/iot/heartbeats', { json: { device_code: 'quiet-1' } })).body[0].status,
        'online',
      );
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
