import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/types.js';
import { AppError, validationFailed } from '../../platform/errors.js';
import { createUser, type NewUser } from '../users/user.service.js';
import { insertTenant, type Tenant } from './tenant.repository.js';

export const TENANT_CODE_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export interface NewTenant {
  code: string;
  name: string;
  owner: Omit<NewUser, 'role'>;
}

/** Creates a tenant and its owner in one transaction: both exist, or neither. */
export async function createTenantWithOwner(
  deps: { db: Kysely<Database>; clock: Clock },
  input: NewTenant,
): Promise<{ tenant: Tenant; ownerId: number }> {
  const code = input.code.trim().toLowerCase();
  if (!TENANT_CODE_PATTERN.test(code)) {
    throw validationFailed([{ field: 'code', message: 'field.pattern' }]);
  }
  if (input.name.trim() === '') throw validationFailed([{ field: 'name', message: 'field.required' }]);
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const tenant = await insertTenant(trx, { code, name: input.name.trim() }, deps.clock.now());
      const owner = await createUser(
        { clock: deps.clock },
        { db: trx, tenantId: tenant.id },
        { ...input.owner, role: 'owner' },
      );
      return { tenant, ownerId: owner.id };
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError('http.validation_failed', 422, {}, [{ field: 'code', message: 'field.taken' }]);
    throw err;
  }
}
