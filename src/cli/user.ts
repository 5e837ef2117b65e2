// furrow user create
import { load } from './lazy.js';
import { parseOptions, requireOption, UsageError, withDatabase } from './options.js';

const USER_CREATE_HELP = `Usage: furrow user create --tenant CODE --username USERNAME --password PASSWORD [--role owner|staff]

Creates a user in an existing tenant.
  --tenant      tenant code
  --username    login name (case-insensitive; stored in lower case)
  --password    at least 8 characters
  --role        owner or staff (default staff)
  --name, --firstname, --lastname   optional display names
`;

export async function userCreate(args: string[]): Promise<number> {
  const values = parseOptions(
    args,
    {
      tenant: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      firstname: { type: 'string' },
      lastname: { type: 'string' },
    },
    USER_CREATE_HELP,
  );
  if (!values) return 0;
  const tenantCode = requireOption(values, 'tenant', USER_CREATE_HELP).toLowerCase();
  const role = (values.role as string | undefined) ?? 'staff';
  if (role !== 'owner' && role !== 'staff')
    throw new UsageError(`--role must be owner or staff.\n\n${USER_CREATE_HELP}`);
  const config = (await load.config()).loadConfig();
  const [{ migrateToLatest }, { findTenantByCode }, { createUser }, { systemClock }] = await Promise.all([
    load.migrate(),
    load.tenants(),
    load.userService(),
    load.clock(),
  ]);
  await withDatabase(config, async ({ db }) => {
    await migrateToLatest(db);
    const tenant = await findTenantByCode(db, tenantCode);
    if (!tenant) throw new UsageError(`No tenant with code "${tenantCode}".`);
    const user = await createUser(
      { clock: systemClock },
      { db, tenantId: tenant.id },
      {
        username: requireOption(values, 'username', USER_CREATE_HELP),
        password: requireOption(values, 'password', USER_CREATE_HELP),
        role,
        name: values.name as string | undefined,
        firstname: values.firstname as string | undefined,
        lastname: values.lastname as string | undefined,
      },
    );
    process.stdout.write(
      `Created ${user.role} "${user.username}" (id ${user.id}) in tenant "${tenant.code}".\n`,
    );
  });
  return 0;
}

const USER_SET_PASSWORD_HELP = `Usage: furrow user set-password --tenant CODE --username USERNAME [--password PASSWORD]

Gives a user a new password and ends every session they have open. Without --password the
password is read from standard input (its first line), so it stays out of the shell's history:
  printf '%s\\n' "$NEW_PASSWORD" | furrow user set-password --tenant demo --username owner
On a terminal it is asked for without being shown.
  --tenant      tenant code
  --username    login name (case-insensitive)
  --password    at least 8 characters (optional; standard input otherwise)
`;

export async function userSetPassword(args: string[]): Promise<number> {
  const values = parseOptions(
    args,
    { tenant: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' } },
    USER_SET_PASSWORD_HELP,
  );
  if (!values) return 0;
  const tenantCode = requireOption(values, 'tenant', USER_SET_PASSWORD_HELP).toLowerCase();
  // As login reads it (auth/identity.ts normalizeUsername).
  const username = requireOption(values, 'username', USER_SET_PASSWORD_HELP).trim().toLowerCase();
  const password =
    typeof values.password === 'string' ? values.password : await readPassword('New password: ');
  if (password === '') throw new UsageError(`No password given.\n\n${USER_SET_PASSWORD_HELP}`);
  const config = (await load.config()).loadConfig();
  const [{ migrateToLatest }, { findLoginCandidate }, { changeUser }, { systemClock }] = await Promise.all([
    load.migrate(),
    load.authRepository(),
    load.userService(),
    load.clock(),
  ]);
  await withDatabase(config, async ({ db }) => {
    await migrateToLatest(db);
    const found = await findLoginCandidate(db, tenantCode, username);
    if (!found) throw new UsageError(`No user "${username}" in tenant "${tenantCode}".`);
    await changeUser({ clock: systemClock }, { db, tenantId: found.tenant.id }, found.user.id, { password });
    process.stdout.write(
      `Set a new password for "${found.user.username}" in tenant "${found.tenant.code}"; their sessions were ended.\n`,
    );
  });
  return 0;
}

/** The first line of standard input; on a terminal, typed without being shown. */
async function readPassword(prompt: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    let text = '';
    for await (const chunk of input) {
      text += String(chunk);
      if (text.includes('\n')) break;
    }
    return text.split(/\r?\n/)[0] ?? '';
  }
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  try {
    let typed = '';
    for await (const chunk of input) {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n' || char === '\u0004') return typed;
        if (char === '\u0003') throw new UsageError('Cancelled.');
        typed = char === '\u007f' || char === '\b' ? typed.slice(0, -1) : typed + char;
      }
    }
    return typed;
  } finally {
    input.setRawMode(false);
    input.pause();
    process.stderr.write('\n');
  }
}
