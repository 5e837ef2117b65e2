// MQTT in tests: publishing as a sensor gateway would, waiting for what a worker does, and a broker
// of a test's own (a real Mosquitto process on a free port) for tests that stop it or need passwords.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt from 'mqtt';
import { freePort } from './processes.js';

/** The machine's shared Mosquitto (tests use topics of their own under a unique prefix). */
export const SHARED_BROKER_URL = process.env.FURROW_TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883';
export const MOSQUITTO = process.env.MOSQUITTO_BIN ?? '/usr/sbin/mosquitto';

export function uniqueTopicPrefix(name: string): string {
  return `furrow-test/${name}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Publishes messages with QoS 1 (each acknowledged by the broker) from a client of its own. */
export async function publish(
  url: string,
  messages: { topic: string; payload: string | object }[],
  auth: { username?: string; password?: string } = {},
): Promise<void> {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...auth });
  try {
    for (const { topic, payload } of messages) {
      await client.publishAsync(topic, typeof payload === 'string' ? payload : JSON.stringify(payload), {
        qos: 1,
      });
    }
  } finally {
    await client.endAsync();
  }
}

/**
 * Ends the broker sessions the workers kept for these sources (connecting with their client ids and
 * clean: true), so the shared broker keeps nothing of a test run.
 */
export async function forgetSessions(
  url: string,
  tenantCode: string,
  sourceIds: readonly number[],
): Promise<void> {
  for (const id of sourceIds) {
    const client = await mqtt.connectAsync(url, {
      clientId: `furrow-${tenantCode}-${id}`,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    await client.endAsync();
  }
}

/** Polls `probe` until it answers something other than undefined, or fails after timeoutMs. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await sleep(100);
  }
}

export interface TestBroker {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/**
 * A Mosquitto of the test's own on a free port of 127.0.0.1, persisting its sessions to a temporary
 * folder (a restart keeps queued messages); with `users`, anonymous clients are refused.
 */
export async function startTestBroker(options: { users?: Record<string, string> } = {}): Promise<TestBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-mosquitto-'));
  const port = await freePort();
  const lines = [
    `listener ${port} 127.0.0.1`,
    'persistence true',
    `persistence_location ${dir}/`,
    'autosave_interval 1',
    'log_dest none',
    // Started as root, Mosquitto would switch to its own user, which cannot read this folder.
    `user ${userInfo().username}`,
  ];
  if (options.users) {
    const file = join(dir, 'passwords');
    writeFileSync(file, '');
    for (const [user, password] of Object.entries(options.users))
      execFileSync('mosquitto_passwd', ['-b', file, user, password]);
    lines.push('allow_anonymous false', `password_file ${file}`);
  } else {
    lines.push('allow_anonymous true');
  }
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `${lines.join('\n')}\n`);
  let child: ChildProcess | undefined;
  const broker: TestBroker = {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    async start() {
      const started = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      child = started;
      let stderr = '';
      started.stderr!.on('data', (d) => {
        stderr += d;
      });
      const deadline = Date.now() + 10_000;
      while (!(await answers(port))) {
        if (started.exitCode !== null) throw new Error(`mosquitto exited: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`mosquitto did not start: ${stderr}`);
        await sleep(50);
      }
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (running.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
    },
    async close() {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await broker.start();
  } catch (err) {
    await broker.close();
    throw err;
  }
  return broker;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
