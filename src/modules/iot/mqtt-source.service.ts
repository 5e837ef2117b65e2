// MQTT sources: the brokers a tenant's sensors publish to, subscribed by the worker role. The
// broker's host follows the public-address rule of webhook URLs (MQTT_ALLOW_PRIVATE_HOSTS exempts
// hosts); the password is encrypted at rest under the service key and never answered.
import type { Config } from '../../config.js';
import { isoTime, isoTimeOrNull } from '../../platform/dates.js';
import { lockLive } from '../../platform/db/records.js';
import { inTransaction, type Scope } from '../../platform/db/scope.js';
import { type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import type { PageQuery, RequestContext } from '../../platform/resource/context.js';
import type { ListAnswer } from '../../platform/resource/paging.js';
import {
  AllowList,
  checkHostAddresses,
  hasSpaceOrControl,
  type Resolver,
  systemResolver,
} from '../webhooks/address-guard.js';
import { decryptSecret, encryptSecret } from '../webhooks/signing.js';
import {
  findMqttSource,
  insertMqttSource,
  listMqttSources,
  type MqttSourceColumns,
  type MqttSourceRow,
  softDeleteMqttSource,
  updateMqttSource,
} from './mqtt-source.repository.js';
import { filtersOverlap, topicFilterProblem } from './mqtt-topics.js';

export type MqttFormat = MqttSourceRow['format'];

export interface MqttSourceDeps {
  config: Pick<Config, 'mqttAllowPrivateHosts'>;
  secretKey: Buffer;
  resolver?: Resolver;
}

export interface MqttSourceInput {
  name?: string | undefined;
  url?: string | undefined;
  username?: string | null | undefined;
  password?: string | null | undefined;
  topics?: string[] | undefined;
  format?: MqttFormat | undefined;
  enabled?: boolean | undefined;
}

export interface MqttSourceAnswer {
  id: number;
  name: string;
  url: string;
  username: string | null;
  has_password: boolean;
  topics: string[];
  format: MqttFormat;
  enabled: boolean;
  connected: boolean;
  last_message_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** Connected only while a worker's lease backs it: a worker that died leaves no stale "connected". */
function toAnswer(row: MqttSourceRow, now: number): MqttSourceAnswer {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    username: row.username,
    has_password: row.password_encrypted !== null,
    topics: JSON.parse(row.topics) as string[],
    format: row.format,
    enabled: row.enabled === 1,
    connected: row.connected === 1 && row.enabled === 1 && row.lease_until !== null && row.lease_until > now,
    last_message_at: isoTimeOrNull(row.last_message_at),
    last_error: row.last_error,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

/** The associated data of a source's encrypted password: a ciphertext cannot be moved to another row. */
const passwordContext = (tenantId: number, id: number) => `iot_mqtt_sources:${tenantId}:${id}`;

export function encryptPassword(secretKey: Buffer, tenantId: number, id: number, password: string): string {
  return encryptSecret(secretKey, password, passwordContext(tenantId, id));
}

export function decryptPassword(secretKey: Buffer, tenantId: number, id: number, stored: string): string {
  return decryptSecret(secretKey, stored, passwordContext(tenantId, id));
}

/** A broker URL's parts, or the message key of why it is refused. */
export function parseBrokerUrl(
  raw: string,
): { protocol: 'mqtt' | 'mqtts'; hostname: string; port: number } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'webhook.url.invalid' };
  }
  if (hasSpaceOrControl(raw)) return { problem: 'webhook.url.whitespace' };
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') return { problem: 'iot.mqtt.url_scheme' };
  if (url.username !== '' || url.password !== '') return { problem: 'iot.mqtt.url_credentials' };
  // mqtt: is not a "special" scheme to the URL parser: the path, query and fragment stay as sent.
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '')
    return { problem: 'iot.mqtt.url_scheme' };
  if (url.hostname === '') return { problem: 'webhook.url.invalid' };
  const protocol = url.protocol === 'mqtts:' ? 'mqtts' : 'mqtt';
  const port = url.port === '' ? (protocol === 'mqtts' ? 8883 : 1883) : Number(url.port);
  return { protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port };
}

async function checkUrl(deps: MqttSourceDeps, raw: string): Promise<FieldError[]> {
  const parsed = parseBrokerUrl(raw);
  if ('problem' in parsed) return [{ field: 'url', message: parsed.problem }];
  const allowList = new AllowList(deps.config.mqttAllowPrivateHosts);
  const problem = await checkHostAddresses(parsed.hostname, allowList, deps.resolver ?? systemResolver);
  return problem ? [{ field: 'url', message: problem.key, params: problem.params }] : [];
}

export function checkTopics(topics: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  topics.forEach((topic, index) => {
    const problem = topicFilterProblem(topic);
    if (problem === 'empty') errors.push({ field: `topics.${index}`, message: 'field.min_length' });
    else if (problem) errors.push({ field: `topics.${index}`, message: 'iot.mqtt.topic_wildcard' });
    else {
      const earlier = topics
        .slice(0, index)
        .findIndex((other) => topicFilterProblem(other) === null && filtersOverlap(other, topic));
      if (earlier !== -1)
        errors.push({
          field: `topics.${index}`,
          message: 'iot.mqtt.topic_overlap',
          params: { other: topics[earlier]! },
        });
    }
  });
  return errors;
}

/** Inputs whose checks passed before their update's transaction (prepareUpdate). */
const checkedInputs = new WeakSet<MqttSourceInput>();

async function checkInput(deps: MqttSourceDeps, input: MqttSourceInput): Promise<void> {
  if (checkedInputs.has(input)) return;
  const errors: FieldError[] = [];
  if (input.name !== undefined && input.name.trim() === '')
    errors.push({ field: 'name', message: 'field.required' });
  if (input.url !== undefined) errors.push(...(await checkUrl(deps, input.url.trim())));
  if (input.topics !== undefined) errors.push(...checkTopics(input.topics));
  if (errors.length > 0) throw validationFailed(errors);
}

/** The columns an input sets, the password aside (it is encrypted once the row's id is known). */
function columnsOf(input: MqttSourceInput): Partial<MqttSourceColumns> {
  const username = input.username?.trim();
  return {
    ...(input.name === undefined ? {} : { name: input.name.trim() }),
    ...(input.url === undefined ? {} : { url: input.url.trim() }),
    ...(input.username === undefined ? {} : { username: username ? username : null }),
    ...(input.topics === undefined ? {} : { topics: JSON.stringify(input.topics) }),
    ...(input.format === undefined ? {} : { format: input.format }),
    ...(input.enabled === undefined ? {} : { enabled: input.enabled ? 1 : 0 }),
  };
}

async function getSource(scope: Scope, id: number, now: number): Promise<MqttSourceAnswer> {
  const row = await findMqttSource(scope, id);
  if (!row) throw notFound();
  return toAnswer(row, now);
}

export function mqttSourceService(deps: MqttSourceDeps) {
  const setPassword = async (tx: Scope, id: number, password: string | null, now: number) => {
    const stored = password === null ? null : encryptPassword(deps.secretKey, tx.tenantId, id, password);
    await updateMqttSource(tx, id, { password_encrypted: stored }, now);
  };
  return {
    async list(ctx: RequestContext, query: PageQuery): Promise<ListAnswer> {
      const now = ctx.clock.now();
      const { rows, total, hasNext } = await listMqttSources(ctx.scope, query);
      return { items: rows.map((row) => toAnswer(row, now)), total, hasNext };
    },
    get: (ctx: RequestContext, id: number) => getSource(ctx.scope, id, ctx.clock.now()),
    lock: (ctx: RequestContext, id: number) => lockLive(ctx.scope, 'iot_mqtt_sources', id),
    async create(
      ctx: RequestContext,
      input: MqttSourceInput & { name: string; url: string; topics: string[]; format: MqttFormat },
    ): Promise<MqttSourceAnswer> {
      await checkInput(deps, input);
      const now = ctx.clock.now();
      return inTransaction(ctx.scope, async (tx) => {
        const columns = { username: null, enabled: 1, ...columnsOf(input), password_encrypted: null };
        const id = await insertMqttSource(tx, columns as MqttSourceColumns, now);
        if (input.password) await setPassword(tx, id, input.password, now);
        return getSource(tx, id, now);
      });
    },
    /** The broker's addresses are looked up here, before the transaction of an If-Match update. */
    async prepareUpdate(_ctx: RequestContext, _id: number, input: MqttSourceInput): Promise<void> {
      await checkInput(deps, input);
      checkedInputs.add(input);
    },
    async update(ctx: RequestContext, id: number, input: MqttSourceInput): Promise<MqttSourceAnswer> {
      await checkInput(deps, input);
      const now = ctx.clock.now();
      return inTransaction(ctx.scope, async (tx) => {
        if (!(await updateMqttSource(tx, id, columnsOf(input), now))) throw notFound();
        if (input.password !== undefined) await setPassword(tx, id, input.password, now);
        return getSource(tx, id, now);
      });
    },
    async remove(ctx: RequestContext, id: number): Promise<void> {
      if (!(await softDeleteMqttSource(ctx.scope, id, ctx.clock.now()))) throw notFound();
    },
  };
}
