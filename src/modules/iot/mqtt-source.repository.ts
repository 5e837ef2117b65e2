// MQTT source statements: the record statements of the API, and the worker's: the lease (taken and
// renewed by one conditional UPDATE), its release, and the status a lease holder writes.
import type { Selectable } from 'kysely';
import { isPostgresDb } from '../../platform/db/database.js';
import {
  findLive,
  insertRecord,
  listLive,
  type PageOf,
  type PageRequest,
  softDeleteRecord,
  updateRecord,
} from '../../platform/db/records.js';
import { type Scope, updateScoped } from '../../platform/db/scope.js';
import type { IotMqttSourcesTable } from '../../platform/db/tables/iot.js';
import type { Db } from '../../platform/db/types.js';

export type MqttSourceRow = Selectable<IotMqttSourcesTable>;

/** The columns the API sets. */
export type MqttSourceColumns = Pick<
  MqttSourceRow,
  'name' | 'url' | 'username' | 'password_encrypted' | 'topics' | 'format' | 'enabled'
>;

export async function insertMqttSource(
  scope: Scope,
  source: MqttSourceColumns,
  now: number,
): Promise<number> {
  return insertRecord(scope, 'iot_mqtt_sources', source, now);
}

export async function updateMqttSource(
  scope: Scope,
  id: number,
  patch: Partial<MqttSourceColumns>,
  now: number,
): Promise<boolean> {
  return updateRecord(scope, 'iot_mqtt_sources', id, patch, now);
}

export async function findMqttSource(scope: Scope, id: number): Promise<MqttSourceRow | undefined> {
  return findLive(scope, 'iot_mqtt_sources', id);
}

export async function listMqttSources(scope: Scope, page: PageRequest): Promise<PageOf<MqttSourceRow>> {
  return listLive(scope, 'iot_mqtt_sources', page);
}

export async function softDeleteMqttSource(scope: Scope, id: number, now: number): Promise<boolean> {
  return softDeleteRecord(scope, 'iot_mqtt_sources', id, now);
}

/** A source as the worker holds it, with its tenant's code (the broker client id names it). */
export type LeasedSource = MqttSourceRow & { tenant_code: string };

/**
 * Takes every live, enabled source whose lease is free or expired, and renews the ones `owner`
 * holds, until `until`: one conditional UPDATE, so two workers never both hold a source (on
 * PostgreSQL the rows are taken in id order, skipping rows another worker is taking right now).
 * Answers the sources `owner` holds afterwards, whatever tenant they belong to: the worker is a
 * system process, not a request.
 */
export async function takeMqttSourceLeases(
  db: Db,
  owner: string,
  now: number,
  until: number,
): Promise<LeasedSource[]> {
  const takeable = db
    .selectFrom('iot_mqtt_sources')
    .select('id')
    .where('deleted_at', 'is', null)
    .where('enabled', '=', 1)
    .where((eb) =>
      eb.or([eb('lease_owner', '=', owner), eb('lease_owner', 'is', null), eb('lease_until', '<', now)]),
    );
  const candidates = isPostgresDb(db) ? takeable.orderBy('id').forUpdate().skipLocked() : takeable;
  const rows = await db
    .updateTable('iot_mqtt_sources')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', 'in', candidates)
    // Checked again on the row as it is when updated (another worker may have taken it meanwhile).
    .where((eb) =>
      eb.or([eb('lease_owner', '=', owner), eb('lease_owner', 'is', null), eb('lease_until', '<', now)]),
    )
    .returningAll()
    .execute();
  if (rows.length === 0) return [];
  const tenantIds = [...new Set(rows.map((r) => r.tenant_id))];
  const tenants = await db
    .selectFrom('tenants')
    .select(['id', 'code'])
    .where('id', 'in', tenantIds)
    .execute();
  const codes = new Map(tenants.map((t) => [t.id, t.code]));
  return rows.map((row) => ({ ...row, tenant_code: codes.get(row.tenant_id) ?? String(row.tenant_id) }));
}

/** Whether a source is gone (deleted, or no longer there): the worker then ends its broker session. */
export async function isMqttSourceDeleted(db: Db, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('iot_mqtt_sources')
    .select('deleted_at')
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined || row.deleted_at !== null;
}

/** Gives up the leases `owner` holds on these sources (a worker stopping): another takes them at once. */
export async function releaseMqttSourceLeases(db: Db, owner: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('iot_mqtt_sources')
    .set({ lease_owner: null, lease_until: null, connected: 0 })
    .where('lease_owner', '=', owner)
    .where('id', 'in', ids)
    .execute();
}

export interface MqttSourceStatus {
  connected?: boolean;
  last_error?: string | null;
  last_message_at?: number;
}

/** Writes a source's status, as long as `owner` still holds its lease (updated_at is not touched). */
export async function writeMqttSourceStatus(
  scope: Scope,
  id: number,
  owner: string,
  status: MqttSourceStatus,
): Promise<void> {
  if (Object.keys(status).length === 0) return;
  await updateScoped(scope, 'iot_mqtt_sources')
    .set({
      ...(status.connected === undefined ? {} : { connected: status.connected ? 1 : 0 }),
      // The column holds 1000 characters; a status is a line.
      ...(status.last_error === undefined ? {} : { last_error: status.last_error?.slice(0, 500) ?? null }),
      ...(status.last_message_at === undefined ? {} : { last_message_at: status.last_message_at }),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}
