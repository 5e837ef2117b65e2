// Test data through the real services, never by writing rows behind their back.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createTenantWithOwner } from '../../src/modules/tenants/tenant.service.js';
import { createUser } from '../../src/modules/users/user.service.js';
import { systemClock } from '../../src/platform/clock.js';
import type { Database } from '../../src/platform/db/types.js';
import { request } from './app.js';

export interface TestTenant {
  id: number;
  code: string;
  owner: { id: number; username: string; password: string };
}

let counter = 0;

export async function makeTenant(db: Kysely<Database>, code?: string): Promise<TestTenant> {
  counter += 1;
  const tenantCode = code ?? `farm${counter}-${randomBytes(3).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const { tenant, ownerId } = await createTenantWithOwner(
    { db, clock: systemClock },
    {
      code: tenantCode,
      name: `Farm ${tenantCode}`,
      owner: { username: 'owner', password, firstname: 'Ana', lastname: 'Tran' },
    },
  );
  return { id: tenant.id, code: tenant.code, owner: { id: ownerId, username: 'owner', password } };
}

export async function makeUser(
  db: Kysely<Database>,
  tenant: TestTenant,
  role: 'owner' | 'staff' = 'staff',
): Promise<{ id: number; username: string; password: string }> {
  counter += 1;
  const username = `${role}${counter}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const user = await createUser(
    { clock: systemClock },
    { db, tenantId: tenant.id },
    { username, password, role },
  );
  return { id: user.id, username, password };
}

export async function loginToken(
  base: string,
  tenantCode: string,
  user: { username: string; password: string },
): Promise<string> {
  const response = await request(base, 'POST', '/api/auth/login', {
    json: { tenantcode: tenantCode, username: user.username, password: user.password },
  });
  if (response.body?.meta?.status_code !== 0) throw new Error(`login failed: ${response.text}`);
  return response.body.data.token as string;
}
