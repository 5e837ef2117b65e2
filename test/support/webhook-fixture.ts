// The setup of the delivery tests: the real app and database, a real HTTPS receiver that answers
// each endpoint on a path of its own, one tenant with its owner's client, and a worker stepped with
// runOnce under the app's manual clock. Call webhookFixture inside forEachDialect's body.
import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import type { Config } from '../../src/config.js';
import { type EventType, emitEvent } from '../../src/modules/webhooks/outbox.js';
import {
  createDeliveryWorker,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
} from '../../src/modules/webhooks/worker.js';
import { client, startTestApp, type TestApp } from './app.js';
import type { TestDatabase } from './databases.js';
import { loginToken, makeTenant, type TestTenant } from './factories.js';
import { type ReceivedRequest, type Receiver, startReceiver } from './webhook-receiver.js';

export const SCHEDULE = '1s,2s,3s,4s,5s,6s';
export const DELAYS = [1000, 2000, 3000, 4000, 5000, 6000];

type Answer = ReturnType<Receiver['script']>;

export interface WebhookFixture {
  /** Set in the fixture's `before` hook, as are receiver, farm, owner and worker. */
  t: TestApp;
  receiver: Receiver;
  farm: TestTenant;
  owner: ReturnType<typeof client>;
  /** Stopped after the file's tests. */
  worker: DeliveryWorker;
  /** No endpoint (so deliveries left retrying by one test stay out of the next); the clock at real time. */
  reset(): Promise<void>;
  /** Another worker on the app's database and clock; the caller stops it. */
  workerWith(options?: DeliveryWorkerOptions, config?: Partial<Config>): DeliveryWorker;
  /** An endpoint on its own receiver path, answered by `answer`. */
  endpoint(
    answer?: (req: ReceivedRequest, n: number) => Answer,
    events?: string[],
  ): Promise<{ id: string; secret: string; path: string; received: () => ReceivedRequest[] }>;
  /** An event of the tenant, in a transaction of its own: the ids of its deliveries. */
  emit(type: EventType, data: Record<string, unknown>): Promise<string[]>;
  /** The endpoint's delivery log as the API answers it. */
  deliveries(epId: string): Promise<any[]>;
  getEndpoint(epId: string): Promise<any>;
}

/** `env`: more settings of the app, read when its `before` hook runs (after the caller's earlier hooks). */
export function webhookFixture(
  database: TestDatabase,
  options: { env?: () => Record<string, string> } = {},
): WebhookFixture {
  const answers = new Map<string, (req: ReceivedRequest) => Answer>();
  let paths = 0;
  const f = {} as WebhookFixture;

  before(async () => {
    f.receiver = await startReceiver((req) => answers.get(req.path.split('?')[0]!)?.(req));
    f.t = await startTestApp(database.url, {
      env: {
        WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        WEBHOOK_CA_FILE: f.receiver.caFile,
        WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
        ...options.env?.(),
      },
    });
    f.worker = f.workerWith();
    f.farm = await makeTenant(f.t.database.db);
    f.owner = client(f.t.url, await loginToken(f.t.url, f.farm.code, f.farm.owner));
  });
  // The clock restarts at real time, so receivers' 5-minute timestamp tolerance holds.
  f.reset = async () => {
    await f.t.database.db.deleteFrom('webhook_endpoints').execute();
    f.t.clock.set(Date.now());
  };
  afterEach(() => f.reset());
  after(async () => {
    await f.worker.stop();
    await f.t.close();
    await f.receiver.close();
  });

  f.workerWith = (options = {}, config = {}) =>
    createDeliveryWorker(
      {
        database: f.t.database,
        clock: f.t.clock,
        config: { ...f.t.config, ...config },
        secretKey: f.t.config.secretKey!,
      },
      options,
    );

  f.endpoint = async (answer = () => undefined, events = ['*']) => {
    paths += 1;
    const path = `/hook-${paths}`;
    let n = 0;
    answers.set(path, (req) => answer(req, n++));
    const res = await f.owner.post('/api/webhooks', { json: { url: f.receiver.origin + path, events } });
    assert.equal(res.status, 201, res.text);
    const received = () => f.receiver.requests.filter((r) => r.path === path);
    return { ...(res.body.data as { id: string; secret: string }), path, received };
  };

  f.emit = (type, data) =>
    f.t.database.db
      .transaction()
      .execute((trx) => emitEvent({ clock: f.t.clock }, { db: trx, tenantId: f.farm.id }, type, data));
  f.deliveries = async (epId) => (await f.owner.get(`/api/webhooks/${epId}/deliveries`)).body as any[];
  f.getEndpoint = async (epId) => (await f.owner.get(`/api/webhooks/${epId}`)).body.data;
  return f;
}
