// One MQTT source's connection, held by the worker that holds its lease: the mqtt client with a
// persistent session (clean: false, client id furrow-<tenant>-<source>, MQTT 3.1.1) so that QoS 1
// messages the broker queued while no worker was connected arrive after a reconnect; a backoff of
// 1 s doubling to 60 s; the public-address rule on the address actually dialled; and each message
// acknowledged (PUBACK) only once stored or found unstorable. While the database is unavailable a
// message is tried again every second and not acknowledged; if the connection drops meanwhile, the
// broker delivers it again.
import { createRequire } from 'node:module';
import { isIP, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/types.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import {
  type AllowList,
  guardedLookup,
  RefusedAddressError,
  refusedAddressReason,
} from '../webhooks/address-guard.js';
import { describeMqttError } from './mqtt-errors.js';
import { type MqttFormat, storeMqttMessage } from './mqtt-messages.js';
import { type LeasedSource, type MqttSourceStatus, writeMqttSourceStatus } from './mqtt-source.repository.js';
import { decryptPassword, parseBrokerUrl } from './mqtt-source.service.js';
import { topicMatches } from './mqtt-topics.js';

/**
 * The MQTT client, loaded when the first source connects: a worker with no MQTT source (most of
 * them) never holds the client's modules in memory.
 */
const mqttClient = (): typeof MqttClient =>
  (createRequire(import.meta.url)('mqtt') as typeof import('mqtt')).MqttClient;

export const FIRST_RETRY_MS = 1000;
export const MAX_RETRY_MS = 60_000;
export const CONNECT_TIMEOUT_MS = 10_000;
const KEEPALIVE_SECONDS = 30;
/** last_message_at is written at most this often. */
const MESSAGE_STATUS_EVERY_MS = 1000;
/** While the database is unavailable: the pause before a message or a status is tried again. */
const UNAVAILABLE_RETRY_MS = 1000;
/** A graceful stop waits this long for the message being stored. */
const STOP_WAIT_MS = 5000;

export interface ConnectionDeps {
  db: Db;
  clock: Clock;
  secretKey: Buffer;
  allowList: AllowList;
  /** The lease owner: status is written only while it holds the source. */
  owner: string;
  /** Whether the worker's lease still has time left: no (re)connection is made without it. */
  leaseValid(): boolean;
  logger: {
    info(obj: unknown, msg: string): void;
    warn(obj: unknown, msg: string): void;
    error(obj: unknown, msg: string): void;
  };
}

/** What a change of requires a new connection. */
export function connectionKey(source: LeasedSource): string {
  return JSON.stringify([source.url, source.username, source.password_encrypted, source.topics]);
}

export class MqttSourceConnection {
  readonly key: string;
  private client: MqttClient | undefined;
  private format: MqttFormat;
  private readonly topics: string[];
  private readonly scope;
  /** Counts connections (and stops): a message of an earlier one is never acknowledged on a later one. */
  private generation = 0;
  private stopped = false;
  private inFlight: Promise<void> | undefined;
  private refusedMessages = 0;
  /** The problem of the current disconnection, once written. */
  private errorShown = false;
  private pending: MqttSourceStatus = {};
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private lastMessageWrite = 0;
  /** The client options and broker of the last start, for ending the session. */
  private started:
    | { options: IClientOptions; url: { protocol: 'mqtt' | 'mqtts'; hostname: string; port: number } }
    | undefined;

  constructor(
    private readonly deps: ConnectionDeps,
    private readonly source: LeasedSource,
  ) {
    this.key = connectionKey(source);
    this.format = source.format;
    this.topics = JSON.parse(source.topics) as string[];
    this.scope = { db: deps.db, tenantId: source.tenant_id };
  }

  get id(): number {
    return this.source.id;
  }

  /** A change that keeps the connection (the format, the name). */
  update(source: LeasedSource): void {
    this.format = source.format;
  }

  start(): void {
    const url = parseBrokerUrl(this.source.url);
    if ('problem' in url) {
      this.note({ connected: false, last_error: 'the stored URL is not a broker URL' }, true);
      return;
    }
    let password: string | undefined;
    if (this.source.password_encrypted !== null) {
      try {
        password = decryptPassword(
          this.deps.secretKey,
          this.source.tenant_id,
          this.source.id,
          this.source.password_encrypted,
        );
      } catch {
        this.note(
          {
            connected: false,
            last_error: 'the password cannot be decrypted with this FURROW_SECRET_KEY; set it again',
          },
          true,
        );
        return;
      }
    }
    const options: IClientOptions = {
      clientId: `furrow-${this.source.tenant_code}-${this.source.id}`,
      // A persistent session: the broker keeps the subscriptions and queues QoS 1 messages while no
      // worker is connected. MQTT 3.1.1, where clean: false means exactly that.
      protocolVersion: 4,
      clean: false,
      keepalive: KEEPALIVE_SECONDS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectPeriod: FIRST_RETRY_MS,
      reconnectOnConnackError: true,
      resubscribe: false,
      // Connected below, once every listener is in place.
      manualConnect: true,
      ...(this.source.username === null ? {} : { username: this.source.username }),
      ...(password === undefined ? {} : { password }),
    };
    this.started = { options, url };
    const client = new (mqttClient())(() => this.openStream(url.protocol, url.hostname, url.port), options);
    this.client = client;
    client.handleMessage = (packet, done) => this.receive(packet.topic, packet.payload as Buffer, done);
    client.on('connect', () => {
      client.options.reconnectPeriod = FIRST_RETRY_MS;
      this.errorShown = false;
      this.refusedMessages = 0;
      this.note({ connected: true, last_error: null }, true);
      this.subscribe(client);
    });
    client.on('reconnect', () => {
      // The next retry waits twice as long, up to MAX_RETRY_MS.
      client.options.reconnectPeriod = Math.min(
        (client.options.reconnectPeriod ?? FIRST_RETRY_MS) * 2,
        MAX_RETRY_MS,
      );
    });
    client.on('error', (err) => {
      this.errorShown = true;
      this.note({ connected: false, last_error: describeMqttError(err, url, password) }, true);
    });
    client.on('close', () => {
      this.generation += 1;
      if (this.stopped) return;
      this.note(
        {
          connected: false,
          ...(this.errorShown ? {} : { last_error: 'disconnected from the broker; reconnecting' }),
        },
        true,
      );
    });
    client.connect();
  }

  /** Ends the connection: graceful lets the message being stored finish and be acknowledged first. */
  async stop(graceful: boolean): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const client = this.client;
    if (graceful && this.inFlight)
      await Promise.race([this.inFlight, sleep(STOP_WAIT_MS, undefined, { ref: false })]);
    this.generation += 1;
    if (client) await new Promise<void>((resolve) => client.end(true, {}, () => resolve()));
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushing;
    if (graceful) await this.write({ ...this.pending, connected: false }).catch(() => {});
  }

  /**
   * Ends the broker's session of a deleted source: one connection with clean: true (MQTT 3.1.1 drops
   * the stored session then), so the broker stops queueing messages for it. Best effort, once.
   */
  async endSession(): Promise<void> {
    const started = this.started;
    if (!started || !this.stopped) return;
    const { url } = started;
    const client = new (mqttClient())(() => this.openStream(url.protocol, url.hostname, url.port, true), {
      ...started.options,
      clean: true,
      reconnectPeriod: 0,
      reconnectOnConnackError: false,
    });
    await new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        client.end(true, {}, () => resolve());
      };
      const timer = setTimeout(finish, CONNECT_TIMEOUT_MS + 1000);
      client.once('connect', finish);
      client.once('error', finish);
      client.once('close', finish);
      client.connect();
    });
  }

  private subscribe(client: MqttClient): void {
    const wanted = Object.fromEntries(this.topics.map((topic) => [topic, { qos: 1 as const }]));
    client.subscribe(wanted, (err, granted) => {
      if (err) return;
      const refused = (granted ?? []).filter((g) => g.qos === 128).map((g) => g.topic);
      if (refused.length > 0)
        this.note({ last_error: `the broker refused the subscription to ${refused.join(', ')}` }, true);
    });
  }

  /** The socket to the broker, dialled only while the lease holds and only to a permitted address. */
  private openStream(protocol: 'mqtt' | 'mqtts', host: string, port: number, endingSession = false): Socket {
    const allowList = this.deps.allowList;
    const refuse = (err: Error) => {
      const socket = new Socket();
      process.nextTick(() => socket.destroy(err));
      return socket;
    };
    if ((this.stopped && !endingSession) || !this.deps.leaseValid())
      return refuse(Object.assign(new Error('the lease on this source ended'), { code: 'EFURROW_NO_LEASE' }));
    if (isIP(host) && !allowList.hasName(host)) {
      const why = refusedAddressReason(host, allowList);
      if (why) return refuse(new RefusedAddressError(host, why));
    }
    const lookup = guardedLookup(allowList);
    const socket =
      protocol === 'mqtts'
        ? tlsConnect({ host, port, lookup, ...(isIP(host) ? {} : { servername: host }) })
        : new Socket().connect({ host, port, lookup });
    socket.once(protocol === 'mqtts' ? 'secureConnect' : 'connect', () => {
      const peer = socket.remoteAddress;
      const why = peer && !allowList.hasName(host) ? refusedAddressReason(peer, allowList) : null;
      if (why) socket.destroy(new RefusedAddressError(peer!, why));
    });
    return socket;
  }

  /** The client's handleMessage: never throws into the client, acknowledges once the message is settled. */
  private receive(topic: string, payload: Buffer, done: (err?: Error) => void): void {
    const generation = this.generation;
    const current = () => generation === this.generation;
    const settle = async (): Promise<boolean> => {
      // A subscription left in the broker's session from earlier topics: not ours any more.
      if (!this.topics.some((filter) => topicMatches(filter, topic))) return true;
      for (;;) {
        try {
          const outcome = await storeMqttMessage(
            { clock: this.deps.clock },
            this.scope,
            this.format,
            topic,
            payload,
          );
          const now = this.deps.clock.now();
          if (outcome.problem !== null) {
            this.refusedMessages += 1;
            const count =
              this.refusedMessages === 1 ? '' : ` (${this.refusedMessages} refused since connecting)`;
            this.note(
              { last_message_at: now, last_error: `message on ${short(topic)}: ${outcome.problem}${count}` },
              true,
            );
          } else {
            this.note({ last_message_at: now }, false);
          }
          return true;
        } catch (err) {
          if (!isDatabaseUnavailable(err)) {
            this.deps.logger.error(
              { err, sourceId: this.source.id, topic },
              'an MQTT message could not be stored',
            );
            this.note(
              { last_error: `message on ${short(topic)}: could not be stored (internal error)` },
              true,
            );
            return true;
          }
          // Not acknowledged: tried again while this connection lasts, delivered again after it.
          if (!current() || this.stopped) return false;
          await sleep(UNAVAILABLE_RETRY_MS, undefined, { ref: false });
          if (!current()) return false;
        }
      }
    };
    const work = settle().then(
      (acknowledge) => {
        if (acknowledge && current()) done();
      },
      () => {},
    );
    this.inFlight = work.finally(() => {
      if (this.inFlight === work) this.inFlight = undefined;
    });
  }

  /** Status to write: at once (urgent), or with last_message_at at most once a second. */
  private note(status: MqttSourceStatus, urgent: boolean): void {
    this.pending = { ...this.pending, ...status };
    const wait = urgent
      ? 0
      : Math.max(0, this.lastMessageWrite + MESSAGE_STATUS_EVERY_MS - this.deps.clock.now());
    if (this.flushTimer && !urgent) return;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flushing = this.flush();
    }, wait);
    this.flushTimer.unref();
  }

  private async flush(): Promise<void> {
    await this.flushing;
    const status = this.pending;
    this.pending = {};
    if (Object.keys(status).length === 0) return;
    try {
      await this.write(status);
    } catch (err) {
      // Kept for the next try, under anything newer.
      this.pending = { ...status, ...this.pending };
      if (!isDatabaseUnavailable(err))
        this.deps.logger.error(
          { err, sourceId: this.source.id },
          'the MQTT source status could not be written',
        );
      if (!this.stopped) {
        this.flushTimer = setTimeout(() => {
          this.flushTimer = undefined;
          this.flushing = this.flush();
        }, UNAVAILABLE_RETRY_MS);
        this.flushTimer.unref();
      }
    }
  }

  private async write(status: MqttSourceStatus): Promise<void> {
    if (status.last_message_at !== undefined) this.lastMessageWrite = this.deps.clock.now();
    await writeMqttSourceStatus(this.scope, this.source.id, this.deps.owner, status);
  }
}

function short(topic: string): string {
  return topic.length > 120 ? `${topic.slice(0, 117)}...` : topic;
}
