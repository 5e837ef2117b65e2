// The statements of one tenant's notifications: its e-mail settings, the people mail goes to, what a
// mail names (farm, device, zone) and the mail written to the outbox.
import type { Insertable } from 'kysely';
import { insertScoped, type Scope, selectScoped } from '../../platform/db/scope.js';
import type { MailOutboxTable } from '../../platform/db/tables/notifications.js';
import type { Language } from '../../platform/i18n.js';
import type { Severity } from './mail-messages.js';

export interface EmailSettings {
  enabled: boolean;
  minSeverity: Severity;
  userIds: number[];
}

export const DEFAULT_EMAIL_SETTINGS: EmailSettings = Object.freeze({
  enabled: false,
  minSeverity: 'critical',
  userIds: [],
}) as EmailSettings;

export async function findEmailSettings(scope: Scope): Promise<EmailSettings> {
  const row = await selectScoped(scope, 'notification_settings')
    .select(['email_enabled', 'min_severity', 'user_ids'])
    .executeTakeFirst();
  if (!row) return { ...DEFAULT_EMAIL_SETTINGS, userIds: [] };
  return {
    enabled: row.email_enabled === 1,
    minSeverity: row.min_severity,
    userIds: parseIds(row.user_ids),
  };
}

function parseIds(text: string): number[] {
  try {
    const ids: unknown = JSON.parse(text);
    return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : [];
  } catch {
    return [];
  }
}

export async function saveEmailSettings(scope: Scope, settings: EmailSettings, now: number): Promise<void> {
  const values = {
    email_enabled: settings.enabled ? 1 : 0,
    min_severity: settings.minSeverity,
    user_ids: JSON.stringify(settings.userIds),
    updated_at: now,
  };
  await insertScoped(scope, 'notification_settings', values)
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(values))
    .execute();
}

export interface Person {
  id: number;
  name: string;
  email: string | null;
  language: Language | null;
}

/** The tenant's live users among `ids`, in no particular order. */
export async function findLiveUsers(scope: Scope, ids: readonly number[]): Promise<Person[]> {
  if (ids.length === 0) return [];
  return selectScoped(scope, 'users')
    .select(['id', 'name', 'email', 'language'])
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}

/** The tenant's live owners. */
export async function findOwners(scope: Scope): Promise<Person[]> {
  return selectScoped(scope, 'users')
    .select(['id', 'name', 'email', 'language'])
    .where('role', '=', 'owner')
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
}

export async function findFarmName(scope: Scope): Promise<string> {
  const row = await scope.db
    .selectFrom('tenants')
    .select('name')
    .where('id', '=', scope.tenantId)
    .executeTakeFirst();
  return row?.name ?? '';
}

/** A device's name and the name of its zone (deleted devices and zones too: mail may be late). */
export async function findDeviceWhere(
  scope: Scope,
  deviceId: number,
): Promise<{ code: string; name: string; zone: string | null } | undefined> {
  const row = await selectScoped(scope, 'iot_devices')
    .leftJoin('zones', (join) =>
      join
        .onRef('zones.tenant_id', '=', 'iot_devices.tenant_id')
        .onRef('zones.id', '=', 'iot_devices.zone_id'),
    )
    .select(['iot_devices.code', 'iot_devices.name', 'zones.name as zone'])
    .where('iot_devices.id', '=', deviceId)
    .executeTakeFirst();
  return row ? { code: row.code, name: row.name, zone: row.zone ?? null } : undefined;
}

export async function findAlertOperator(scope: Scope, alertId: number): Promise<string | undefined> {
  const row = await selectScoped(scope, 'iot_alerts')
    .select('operator')
    .where('id', '=', alertId)
    .executeTakeFirst();
  return row?.operator;
}

export type MailInsert = Omit<Insertable<MailOutboxTable>, 'tenant_id'>;

export async function insertMail(scope: Scope, rows: readonly MailInsert[]): Promise<void> {
  if (rows.length === 0) return;
  await insertScoped(scope, 'mail_outbox', rows).execute();
}
