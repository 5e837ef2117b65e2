import { type Kysely, type MigrationResult, Migrator } from 'kysely';
import { migrations } from './migrations/index.js';
import { sqliteConnectionOf } from './sqlite/open.js';
import type { Database } from './types.js';

/**
 * Kysely's migrator over Furrow's migrations and tables; with `before`, over the migrations whose
 * names sort before it only (a test of one migration on the data of the releases before it).
 */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema, as migrations do.
export function furrowMigrator(db: Kysely<any>, before?: string): Migrator {
  const chosen =
    before === undefined
      ? migrations
      : Object.fromEntries(Object.entries(migrations).filter(([name]) => name < before));
  return new Migrator({
    db,
    provider: { getMigrations: async () => chosen },
    migrationTableName: 'furrow_migrations',
    migrationLockTableName: 'furrow_migrations_lock',
  });
}

/** Applies every pending migration. Safe to run from several processes at once (the migrator locks). */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationResult[]> {
  const migrator = furrowMigrator(db);
  // SQLite keeps temporary tables in memory (sqlite/open.ts); a migration that builds an index on a
  // large table sorts it whole, so migrations keep them on disk.
  const sqlite = sqliteConnectionOf(db)?.sqlite;
  const tempStore = sqlite?.pragma('temp_store', { simple: true });
  sqlite?.pragma('temp_store = FILE');
  const { error, results = [] } = await migrator.migrateToLatest().finally(() => {
    if (sqlite?.open) sqlite.pragma(`temp_store = ${Number(tempStore)}`);
  });
  if (error) {
    const failed = results.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return results;
}

/** Names of migrations not yet applied. */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const migrator = furrowMigrator(db);
  const all = await migrator.getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
