import type { Static } from 'typebox';
import { listLive } from '../../platform/db/records.js';
import { conflict, notFound } from '../../platform/errors.js';
import { type RequestContext, resourceRoutes } from '../../platform/http/resource.js';
import { findUserById, softDeleteUser, type UserRow, updateUserRow } from './user.repository.js';
import { User, UserCreate, UserUpdate } from './user.schemas.js';
import { createUser, prepareUserChanges } from './user.service.js';

const present = (row: UserRow): Static<typeof User> => ({
  id: row.id,
  name: row.name,
  firstname: row.firstname,
  lastname: row.lastname,
  picture: row.picture,
  username: row.username,
  role: row.role,
});

async function getUser(ctx: RequestContext, id: number) {
  const row = await findUserById(ctx.scope, id);
  if (!row) throw notFound();
  return present(row);
}

export const userRoutes = resourceRoutes({
  tag: 'users',
  noun: 'user',
  path: '/api/users',
  ownerOnlyWrites: true,
  description: 'Owners only (staff: 403). The password is stored as an argon2id hash and never answered.',
  schemas: { item: User, create: UserCreate, update: UserUpdate },
  service: {
    async list(ctx, query) {
      const { rows, total } = await listLive(ctx.scope, 'users', query);
      return { items: rows.map(present), total };
    },
    get: getUser,
    async create(ctx, input) {
      const row = await createUser(ctx, ctx.scope, { ...input, role: input.role ?? 'staff' });
      return present(row);
    },
    async update(ctx, id, input) {
      // An owner cannot demote themself: a tenant must keep an owner who can manage it.
      if (id === ctx.user.id && input.role === 'staff') throw conflict('users.self_change');
      const changes = await prepareUserChanges(input);
      if (!(await updateUserRow(ctx.scope, id, changes, ctx.clock.now()))) throw notFound();
      return getUser(ctx, id);
    },
    async remove(ctx, id) {
      if (id === ctx.user.id) throw conflict('users.self_change');
      if (!(await softDeleteUser(ctx.scope, id, ctx.clock.now()))) throw notFound();
    },
  },
});
