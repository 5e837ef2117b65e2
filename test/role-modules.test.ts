// What each role of `furrow serve` loads, as a real process: the worker answers no request, so it
// loads no route, schema or API document; the API role delivers no webhook, subscribes to no MQTT
// broker and sends no mail, so it loads none of their clients; a worker loads the MQTT client only
// once an MQTT source exists. Each module costs memory for as long as the process lives.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TEST_SECRET_KEY_HEX } from './support/app.js';
import { type ServerProcess, startFurrow, startFurrowWorker } from './support/processes.js';

const MODULE_LOG_PRELOAD = fileURLToPath(new URL('./support/module-log.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'furrow-role-modules-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The modules a role loaded by the time it was up, as URLs. */
async function modulesOf(role: 'api' | 'worker'): Promise<string[]> {
  const log = join(dir, `${role}.modules`);
  const options = {
    cwd: dir,
    nodeArgs: ['--import', MODULE_LOG_PRELOAD],
    env: {
      DATABASE_URL: `sqlite:${join(dir, `${role}.db`)}`,
      FURROW_SECRET_KEY: TEST_SECRET_KEY_HEX,
      FURROW_DEMO: 'off',
      FURROW_TEST_MODULE_LOG: log,
    },
  };
  const server: ServerProcess =
    role === 'worker'
      ? await startFurrowWorker([], options)
      : await startFurrow(['serve', '--role', 'api'], options);
  await server.stop();
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

/** The loaded modules whose path has this part (a package `/node_modules/mqtt/`, a file `/app.js`). */
const matching = (modules: string[], part: RegExp) => modules.filter((url) => part.test(url));

describe('modules each role loads', () => {
  it('the worker loads no route, schema or API document', async () => {
    const modules = await modulesOf('worker');
    assert.ok(matching(modules, /\/modules\/webhooks\/worker\.(js|ts)$/).length > 0, 'the log works');
    assert.deepEqual(matching(modules, /\/(src|dist)\/app\.(js|ts)$/), []);
    assert.deepEqual(matching(modules, /\.routes\.(js|ts)$/), []);
    assert.deepEqual(matching(modules, /\/node_modules\/@fastify\/(swagger|swagger-ui|static)\//), []);
    // No MQTT source exists, so no MQTT client.
    assert.deepEqual(matching(modules, /\/node_modules\/mqtt\//), []);
  });

  it('the API role loads no webhook, MQTT or mail client', async () => {
    const modules = await modulesOf('api');
    assert.ok(matching(modules, /\/(src|dist)\/app\.(js|ts)$/).length > 0, 'the log works');
    assert.deepEqual(matching(modules, /\/node_modules\/(undici|mqtt|nodemailer)\//), []);
    assert.deepEqual(matching(modules, /\/modules\/webhooks\/worker\.(js|ts)$/), []);
  });
});
