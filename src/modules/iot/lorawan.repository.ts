// Statements of LoRaWAN ingestion: the keys of events already stored, and the devices heard of that
// no live device claims. Tenant rows go through the scope helpers; pruning old keys is the one
// cross-tenant statement (a background job, not a request).
import { type Selectable, sql } from 'kysely';
import { countUpTo, type PageOf, type PageRequest, pageOf } from '../../platform/db/pages.js';
import { deleteScoped, insertScoped, type Scope, selectScoped } from '../../platform/db/scope.js';
import type { IotUnclaimedDevicesTable } from '../../platform/db/tables/iot.js';
import type { Db } from '../../platform/db/types.js';

export type UnclaimedDeviceRow = Selectable<IotUnclaimedDevicesTable>;

/**
 * Records that the event with this key is being stored; false when it already was. Call it in the
 * transaction that stores the event: on PostgreSQL a concurrent insert of the same key waits for
 * that transaction and then finds the key taken, so exactly one of two racing deliveries stores it.
 */
export async function claimIngestKey(scope: Scope, key: string, now: number): Promise<boolean> {
  const result = await insertScoped(scope, 'iot_ingest_keys', { ingest_key: key, created_at: now })
    .onConflict((oc) => oc.columns(['tenant_id', 'ingest_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Deletes ingest keys created before `before`, across tenants, `chunk` at a time; answers how many. */
export async function pruneIngestKeys(db: Db, before: number, chunk = 1000): Promise<number> {
  let pruned = 0;
  for (;;) {
    const oldest = await db
      .selectFrom('iot_ingest_keys')
      .select('created_at')
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(chunk)
      .execute();
    const last = oldest.at(-1);
    if (!last) return pruned;
    const deleted = await db
      .deleteFrom('iot_ingest_keys')
      .where('created_at', '<=', Number(last.created_at))
      .where('created_at', '<', before)
      .executeTakeFirst();
    pruned += Number(deleted.numDeletedRows);
    if (oldest.length < chunk) return pruned;
  }
}

export interface UnclaimedSighting {
  devEui: string;
  source: UnclaimedDeviceRow['source'];
  name: string | null;
  /** JSON text, already cut; null keeps the payload seen before. */
  payload: string | null;
}

/** A device no live device claims was heard from: listed once, with its last sighting and count. */
export async function recordUnclaimedDevice(
  scope: Scope,
  seen: UnclaimedSighting,
  now: number,
): Promise<void> {
  await insertScoped(scope, 'iot_unclaimed_devices', {
    dev_eui: seen.devEui,
    source: seen.source,
    name: seen.name,
    first_seen_at: now,
    last_seen_at: now,
    seen_count: 1,
    last_payload: seen.payload,
  })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'dev_eui']).doUpdateSet((eb) => ({
        source: eb.ref('excluded.source'),
        name: sql<string | null>`coalesce(excluded.name, iot_unclaimed_devices.name)`,
        last_seen_at: sql<number>`case when excluded.last_seen_at > iot_unclaimed_devices.last_seen_at then excluded.last_seen_at else iot_unclaimed_devices.last_seen_at end`,
        seen_count: sql<number>`iot_unclaimed_devices.seen_count + 1`,
        last_payload: sql<string | null>`coalesce(excluded.last_payload, iot_unclaimed_devices.last_payload)`,
      })),
    )
    .execute();
}

/** The unclaimed devices, last heard from first. */
export async function listUnclaimedDevices(
  scope: Scope,
  page: PageRequest,
): Promise<PageOf<UnclaimedDeviceRow>> {
  return pageOf(
    page,
    (limit, offset) =>
      selectScoped(scope, 'iot_unclaimed_devices')
        .selectAll()
        .orderBy('last_seen_at', 'desc')
        .orderBy('dev_eui')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => countUpTo(scope.db, selectScoped(scope, 'iot_unclaimed_devices').select('dev_eui')),
  );
}

export async function findUnclaimedDevice(
  scope: Scope,
  devEui: string,
): Promise<UnclaimedDeviceRow | undefined> {
  return selectScoped(scope, 'iot_unclaimed_devices')
    .selectAll()
    .where('dev_eui', '=', devEui)
    .executeTakeFirst();
}

/** Removes a device from the unclaimed list; false when it was not there. */
export async function deleteUnclaimedDevice(scope: Scope, devEui: string): Promise<boolean> {
  const result = await deleteScoped(scope, 'iot_unclaimed_devices')
    .where('dev_eui', '=', devEui)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
