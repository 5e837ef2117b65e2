// furrow tenant create
import { load } from './lazy.js';
import { parseOptions, requireOption, withDatabase } from './options.js';

const TENANT_CREATE_HELP = `Usage: furrow tenant create --code CODE --name NAME --owner USERNAME --password PASSWORD [--demo]

Creates a tenant (one farm business) and its owner account.
  --code        tenant code used at login (lowercase letters, digits, hyphens)
  --name        display name of the farm business
  --owner       username of the owner
  --password    owner's password (at least 8 characters)
  --firstname, --lastname   optional owner names
  --demo        also load demo data: a farm with blocks, zones and parcels, crop types,
                product categories, crops, a season template, seasons, diary task
                categories and sub-categories, and a task
`;

export async function tenantCreate(args: string[]): Promise<number> {
  const values = parseOptions(
    args,
    {
      code: { type: 'string' },
      name: { type: 'string' },
      owner: { type: 'string' },
      password: { type: 'string' },
      firstname: { type: 'string' },
      lastname: { type: 'string' },
      demo: { type: 'boolean' },
    },
    TENANT_CREATE_HELP,
  );
  if (!values) return 0;
  const input = {
    code: requireOption(values, 'code', TENANT_CREATE_HELP),
    name: requireOption(values, 'name', TENANT_CREATE_HELP),
    owner: {
      username: requireOption(values, 'owner', TENANT_CREATE_HELP),
      password: requireOption(values, 'password', TENANT_CREATE_HELP),
      firstname: (values.firstname as string | undefined) ?? '',
      lastname: (values.lastname as string | undefined) ?? '',
    },
  };
  const config = (await load.config()).loadConfig();
  const [{ migrateToLatest }, { createTenantWithOwner }, { systemClock }, { loadDemoData }] =
    await Promise.all([load.migrate(), load.tenantService(), load.clock(), load.demoData()]);
  await withDatabase(config, async ({ db }) => {
    await migrateToLatest(db);
    const { tenant, ownerId } = await createTenantWithOwner({ db, clock: systemClock }, input);
    process.stdout.write(
      `Created tenant "${tenant.code}" (id ${tenant.id}) with owner "${input.owner.username.toLowerCase()}".\n`,
    );
    if (values.demo) {
      const demo = await loadDemoData({ clock: systemClock }, { db, tenantId: tenant.id }, ownerId);
      process.stdout.write(describeDemo(demo));
    }
  });
  return 0;
}

export function describeDemo(demo: { farms: number; crops: number; seasons: number; tasks: number }): string {
  return (
    `Loaded demo data: ${demo.farms} farm with blocks, zones and parcels, ${demo.crops} crops, ` +
    `${demo.seasons} seasons, ${demo.tasks} diary task, and their reference data.\n`
  );
}
