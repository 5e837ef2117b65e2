// furrow migrate
import { load } from './lazy.js';
import { parseOptions, withDatabase } from './options.js';

const MIGRATE_HELP = `Usage: furrow migrate

Applies every pending database migration to DATABASE_URL (SQLite or PostgreSQL).
Safe to run from several processes at once.
`;

export async function migrate(args: string[]): Promise<number> {
  if (!parseOptions(args, {}, MIGRATE_HELP)) return 0;
  const config = (await load.config()).loadConfig();
  const { migrateToLatest } = await load.migrate();
  await withDatabase(config, async ({ db }) => {
    const results = await migrateToLatest(db);
    process.stdout.write(
      results.length === 0
        ? 'Database is up to date.\n'
        : results.map((r) => `applied ${r.migrationName}\n`).join(''),
    );
  });
  return 0;
}
