// Writing mail: event sources call these inside the transaction of what the mail tells, so the
// change and its mail commit together or not at all. The worker (mail-worker.ts) sends it later.
// Nothing is written while e-mail is off (no SMTP_URL, see mail-switch.ts).
import type { Scope } from '../../platform/db/scope.js';
import type { Language } from '../../platform/i18n.js';
import {
  alertMail,
  type MailText,
  offlineMail,
  type PauseMail,
  pauseMail,
  type Severity,
} from './mail-messages.js';
import { isMailWriting } from './mail-switch.js';
import {
  findAlertOperator,
  findDeviceWhere,
  findEmailSettings,
  findFarmName,
  findLiveUsers,
  findOwners,
  insertMail,
  type Person,
} from './notification.repository.js';

const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };

const isSeverity = (value: unknown): value is Severity =>
  typeof value === 'string' && Object.hasOwn(SEVERITY_RANK, value);

/**
 * Mail for an event, to the recipients of the tenant's e-mail settings when they are enabled:
 * `iot.alert.raised` at or above the chosen severity, and `iot.device.offline`. Other kinds are not
 * mailed. Answers how many mails were written.
 */
export async function writeEventMail(
  tx: Scope,
  type: string,
  data: Record<string, unknown>,
  now: number,
): Promise<number> {
  if (!isMailWriting()) return 0;
  // Only the kinds below are mailed; `iot.alert.resolved` and `iot.device.online` (and any other kind)
  // are not. To mail one, add its case here with a text in mail-messages.ts.
  if (type !== 'iot.alert.raised' && type !== 'iot.device.offline') return 0;
  const settings = await findEmailSettings(tx);
  if (!settings.enabled) return 0;
  if (type === 'iot.alert.raised') {
    if (!isSeverity(data.severity)) return 0;
    if (SEVERITY_RANK[data.severity] < SEVERITY_RANK[settings.minSeverity]) return 0;
  }
  const people = withEmail(await findLiveUsers(tx, settings.userIds));
  if (people.length === 0) return 0;
  const compose = await (type === 'iot.alert.raised' ? alertText(tx, data) : offlineText(tx, data));
  if (!compose) return 0;
  return queue(tx, type, people, compose, now);
}

/** Mail to every owner with an e-mail: an endpoint of theirs was paused automatically. */
export async function writeEndpointPausedMail(
  tx: Scope,
  endpoint: Omit<PauseMail, 'farm'>,
  now: number,
): Promise<number> {
  if (!isMailWriting()) return 0;
  const owners = withEmail(await findOwners(tx));
  if (owners.length === 0) return 0;
  const farm = await findFarmName(tx);
  return queue(
    tx,
    'webhook.endpoint.paused',
    owners,
    (language) => pauseMail(language, { ...endpoint, farm }),
    now,
  );
}

type Compose = (language: Language) => MailText;

async function alertText(tx: Scope, data: Record<string, unknown>): Promise<Compose | undefined> {
  const deviceId = Number(data.device_id);
  const where = await findDeviceWhere(tx, deviceId);
  if (!where || !isSeverity(data.severity)) return undefined;
  const operator = (await findAlertOperator(tx, Number(data.alert_id))) ?? 'gt';
  const farm = await findFarmName(tx);
  const recordedAt = Date.parse(String(data.recorded_at));
  const facts = {
    farm,
    deviceCode: where.code,
    deviceName: where.name,
    zone: where.zone,
    severity: data.severity,
    metric: String(data.metric),
    value: Number(data.value),
    threshold: Number(data.threshold),
    operator,
    message: String(data.message ?? ''),
    recordedAt: Number.isNaN(recordedAt) ? 0 : recordedAt,
  };
  return (language) => alertMail(language, facts);
}

async function offlineText(tx: Scope, data: Record<string, unknown>): Promise<Compose | undefined> {
  const where = await findDeviceWhere(tx, Number(data.device_id));
  if (!where) return undefined;
  const farm = await findFarmName(tx);
  const heard = typeof data.last_heartbeat === 'string' ? Date.parse(data.last_heartbeat) : Number.NaN;
  const facts = {
    farm,
    deviceCode: where.code,
    deviceName: where.name,
    zone: where.zone,
    lastHeartbeatAt: Number.isNaN(heard) ? null : heard,
  };
  return (language) => offlineMail(language, facts);
}

/** People with an address, each address once. */
function withEmail(people: Person[]): (Person & { email: string })[] {
  const seen = new Set<string>();
  const out: (Person & { email: string })[] = [];
  for (const person of people.sort((a, b) => a.id - b.id)) {
    if (!person.email) continue;
    const key = person.email.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...person, email: person.email });
  }
  return out;
}

async function queue(
  tx: Scope,
  kind: string,
  people: (Person & { email: string })[],
  compose: Compose,
  now: number,
): Promise<number> {
  const rows = people.map((person) => {
    const { subject, text } = compose(person.language ?? 'en');
    return {
      kind,
      to_address: person.email,
      subject: subject.replace(/[\r\n\t]+/g, ' ').slice(0, 998),
      text_body: text,
      status: 'pending' as const,
      next_attempt_at: now,
      lease_owner: null,
      lease_until: null,
      last_error: null,
      created_at: now,
      sent_at: null,
    };
  });
  await insertMail(tx, rows);
  return rows.length;
}
