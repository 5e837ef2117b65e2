// The signed-in user's own account: read it, change name, language and e-mail, change the password.
import type { Static } from 'typebox';
import { inTransaction } from '../../platform/db/scope.js';
import { type FieldError, notFound, validationFailed } from '../../platform/errors.js';
import type { RequestContext } from '../../platform/resource/context.js';
import { revokeUserTokens } from '../auth/auth.repository.js';
import { hashPassword, verifyPassword } from '../auth/password.js';
import type { Account, AccountUpdate, PasswordChange } from './account.schemas.js';
import { findUserById, type UserChanges, type UserRow, updateUserRow } from './user.repository.js';
import { checkEmail, checkPassword } from './user.service.js';

const presentAccount = (row: UserRow): Static<typeof Account> => ({
  id: row.id,
  username: row.username,
  name: row.name,
  role: row.role,
  language: row.language,
  email: row.email,
});

async function ownRow(ctx: RequestContext): Promise<UserRow> {
  const row = await findUserById(ctx.scope, ctx.user.id);
  // The token resolved, so the user was live a moment ago; deleted since, they are gone.
  if (!row) throw notFound();
  return row;
}

export async function getAccount(ctx: RequestContext): Promise<Static<typeof Account>> {
  return presentAccount(await ownRow(ctx));
}

/** Changes only the fields sent; language and e-mail null clear them. */
export async function updateAccount(
  ctx: RequestContext,
  input: Static<typeof AccountUpdate>,
): Promise<Static<typeof Account>> {
  const errors: FieldError[] = [];
  const changes: UserChanges = {};
  if (input.name !== undefined) {
    changes.name = input.name.trim();
    if (changes.name === '') errors.push({ field: 'name', message: 'field.min_length' });
  }
  if (input.language !== undefined) changes.language = input.language;
  if (input.email !== undefined) changes.email = checkEmail(input.email, errors);
  if (errors.length > 0) throw validationFailed(errors);
  if (!(await updateUserRow(ctx.scope, ctx.user.id, changes, ctx.clock.now()))) throw notFound();
  return getAccount(ctx);
}

/**
 * A new password, given the current one (a wrong one is a 422 naming current_password). Every other
 * session of the user ends; the one that made the change (`tokenId`) goes on.
 */
export async function changePassword(
  ctx: RequestContext,
  tokenId: number,
  input: Static<typeof PasswordChange>,
): Promise<void> {
  const row = await ownRow(ctx);
  const errors: FieldError[] = [];
  if (!(await verifyPassword(row.password_hash, input.current_password))) {
    errors.push({ field: 'current_password', message: 'field.wrong_password' });
  }
  checkPassword(input.new_password, errors, 'new_password');
  if (errors.length > 0) throw validationFailed(errors);
  const passwordHash = await hashPassword(input.new_password);
  await inTransaction(ctx.scope, async (tx) => {
    const now = ctx.clock.now();
    if (!(await updateUserRow(tx, ctx.user.id, { password_hash: passwordHash }, now))) throw notFound();
    await revokeUserTokens(tx, ctx.user.id, now, tokenId);
  });
}
