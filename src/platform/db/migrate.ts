import { type Kysely, type MigrationResult, Migrator } from 'kysely';
import { migrations } from './migrations/index.js';

/** Applies every pending migration. Safe to run from several processes at once (the migrator locks). */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResult[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'furrow_migrations',
    migrationLockTableName: 'furrow_migrations_lock',
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return results;
}

/** Names of migrations not yet applied. */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'furrow_migrations',
    migrationLockTableName: 'furrow_migrations_lock',
  });
  const all = await migrator.getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
