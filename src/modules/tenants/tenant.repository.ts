import type { Db } from '../../platform/db/types.js';

export interface Tenant {
  id: number;
  code: string;
  name: string;
}

/**
 * A plain insert: a new tenant changes no token already resolved, so the token cache need not be
 * told. A write that updates tenants (or upserts them) calls authChanged (auth/token-cache.ts).
 */
export async function insertTenant(
  db: Db,
  tenant: { code: string; name: string },
  now: number,
): Promise<Tenant> {
  const row = await db
    .insertInto('tenants')
    .values({ code: tenant.code, name: tenant.name, created_at: now, updated_at: now })
    .returning(['id', 'code', 'name'])
    .executeTakeFirstOrThrow();
  return row;
}

export async function findTenantByCode(db: Db, code: string): Promise<Tenant | undefined> {
  return db.selectFrom('tenants').select(['id', 'code', 'name']).where('code', '=', code).executeTakeFirst();
}

export async function countTenants(db: Db): Promise<number> {
  const row = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
