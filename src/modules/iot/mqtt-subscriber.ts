// The MQTT subscriber: a background service of the worker role. Every few seconds one conditional
// UPDATE takes the free sources and renews this worker's leases (mqtt-source.repository.ts); the
// sources it holds are connected, the ones it lost, and the deleted or disabled ones, disconnected,
// and a changed URL, user name, password or topic list reconnects. A worker that cannot renew
// disconnects everything before its leases end, so two workers never hold one broker session; a
// dead worker's sources are taken over once its leases expire. SIGTERM gives the leases back.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../../config.js';
import type { BackgroundService } from '../../platform/background.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/types.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { AllowList } from '../webhooks/address-guard.js';
import { type ConnectionDeps, connectionKey, MqttSourceConnection } from './mqtt-connection.js';
import {
  isMqttSourceDeleted,
  releaseMqttSourceLeases,
  takeMqttSourceLeases,
} from './mqtt-source.repository.js';

/** How long a lease lasts; it is renewed every POLL_MS. */
export const LEASE_MS = 15_000;
/** How often sources are read again: a change takes effect within this (and a connect). */
export const POLL_MS = 3_000;

export interface SubscriberDeps {
  db: Db;
  clock: Clock;
  secretKey: Buffer;
  config: Pick<Config, 'mqttAllowPrivateHosts'>;
  logger: ConnectionDeps['logger'];
}

export interface SubscriberOptions {
  leaseMs?: number;
  pollMs?: number;
}

export class MqttSubscriber implements BackgroundService {
  readonly name = 'mqtt subscriber';
  /** The lease owner: unique per process (at most 64 characters). */
  readonly id = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly connections = new Map<number, MqttSourceConnection>();
  /** Sessions of deleted sources being ended at their brokers. */
  private readonly endingSessions = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /** Connections are made only until this (clock time): the leases' end less a third of a lease. */
  private connectUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = true;
  private unavailable = false;
  private readonly connectionDeps: ConnectionDeps;

  constructor(
    private readonly deps: SubscriberDeps,
    options: SubscriberOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.pollMs = options.pollMs ?? POLL_MS;
    this.connectionDeps = {
      db: deps.db,
      clock: deps.clock,
      secretKey: deps.secretKey,
      allowList: new AllowList(deps.config.mqttAllowPrivateHosts),
      owner: this.id,
      leaseValid: () => this.deps.clock.now() < this.connectUntil,
      logger: deps.logger,
    };
  }

  /** The sources this worker holds and connects to. */
  get heldSourceIds(): number[] {
    return [...this.connections.keys()];
  }

  /** Resolves once the sessions of deleted sources being ended now are ended. */
  async sessionsEnded(): Promise<void> {
    await Promise.allSettled([...this.endingSessions]);
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.expiry) clearTimeout(this.expiry);
    await this.polling;
    const held = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(held.map((c) => c.stop(true)));
    await Promise.allSettled([...this.endingSessions]);
    try {
      await releaseMqttSourceLeases(
        this.deps.db,
        this.id,
        held.map((c) => c.id),
      );
    } catch (err) {
      this.deps.logger.warn(
        { err: (err as Error).message },
        'MQTT leases not released; they expire by themselves',
      );
    }
  }

  /** One step: take and renew leases, then connect, reconnect and disconnect to match. */
  async runOnce(): Promise<void> {
    const now = this.deps.clock.now();
    let held: Awaited<ReturnType<typeof takeMqttSourceLeases>>;
    try {
      held = await takeMqttSourceLeases(this.deps.db, this.id, now, now + this.leaseMs);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) this.deps.logger.error({ err }, 'MQTT sources could not be read');
      else if (!this.unavailable)
        this.deps.logger.warn(
          { err: (err as Error).message },
          'MQTT sources could not be read: the database is unavailable; connections end before their leases do',
        );
      this.unavailable = true;
      return;
    }
    this.unavailable = false;
    if (this.stopped) return;
    this.renewed(now + this.leaseMs);
    const byId = new Map(held.map((source) => [source.id, source]));
    for (const [id, connection] of this.connections) {
      const source = byId.get(id);
      if (source && connectionKey(source) === connection.key) {
        connection.update(source);
        continue;
      }
      // Deleted, disabled or changed: while its lease is valid no other worker can hold it.
      this.connections.delete(id);
      await connection.stop(true);
      if (!source) this.endSessionIfDeleted(connection);
    }
    for (const source of held) {
      if (this.connections.has(source.id)) continue;
      const connection = new MqttSourceConnection(this.connectionDeps, source);
      this.connections.set(source.id, connection);
      this.deps.logger.info(
        { sourceId: source.id, tenantId: source.tenant_id, url: source.url },
        'subscribing to an MQTT source',
      );
      connection.start();
    }
  }

  /** A deleted source's broker session is ended, so the broker queues nothing more for it. */
  private endSessionIfDeleted(connection: MqttSourceConnection): void {
    const ending = isMqttSourceDeleted(this.deps.db, connection.id)
      .then((deleted) => (deleted ? connection.endSession() : undefined))
      .catch((err) => this.deps.logger.warn({ err: (err as Error).message }, 'an MQTT session was not ended'))
      .finally(() => this.endingSessions.delete(ending));
    this.endingSessions.add(ending);
  }

  /** The leases run until `until`: connections end a third of a lease before, unless renewed again. */
  private renewed(until: number): void {
    this.connectUntil = until - Math.floor(this.leaseMs / 3);
    this.armExpiry();
  }

  /**
   * Ends every connection at connectUntil unless a renewal moved it. A timer may fire a few ms before
   * the clock reaches its time (Node's loop time lags the clock after a busy turn): then it waits
   * again for the rest, rather than leaving the connections up past their leases.
   */
  private armExpiry(): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = setTimeout(
      () => {
        this.expiry = undefined;
        if (this.stopped) return;
        if (this.deps.clock.now() < this.connectUntil) {
          this.armExpiry();
          return;
        }
        this.deps.logger.warn(
          { sources: this.heldSourceIds },
          'MQTT leases could not be renewed in time; disconnecting before they end',
        );
        const lost = [...this.connections.values()];
        this.connections.clear();
        for (const connection of lost) void connection.stop(false);
      },
      Math.max(1, this.connectUntil - this.deps.clock.now()),
    );
    this.expiry.unref();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.polling = this.runOnce()
        .catch((err) => this.deps.logger.error({ err }, 'the MQTT subscriber step failed'))
        .finally(() => {
          this.polling = undefined;
          this.schedule(this.pollMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}

export function createMqttSubscriber(deps: SubscriberDeps, options?: SubscriberOptions): MqttSubscriber {
  return new MqttSubscriber(deps, options);
}
