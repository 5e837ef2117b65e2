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
