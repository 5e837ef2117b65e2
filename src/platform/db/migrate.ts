import { type Kysely, type MigrationResult, Migrator } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Database } from './types.js';

/** Applies every pending migration. Safe to run from several processes at once (the migrator locks). */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationResult[]> {
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
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'furrow_migrations',
    migrationLockTableName: 'furrow_migrations_lock',
  });
  const all = await migrator.getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
