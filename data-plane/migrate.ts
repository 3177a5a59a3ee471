import { Migrator, type Kysely, type MigrationProvider, type Migration } from 'kysely';
import type { Logger } from '../observability/logger.js';
import { DataPlaneOpenError } from './data-plane-open-error.js';
import { MIGRATIONS, type DataPlaneMigration } from './migrations/index.js';

/** Kept apart from Kysely's default names so the tables say whose history they hold. */
export const MIGRATION_TABLE = 'data_plane_migration';
export const MIGRATION_LOCK_TABLE = 'data_plane_migration_lock';

/** Serves the migrations compiled into the program, so nothing depends on reading a directory at run time. */
class CompiledMigrationProvider implements MigrationProvider {
  constructor(private readonly migrations: readonly DataPlaneMigration[]) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(this.migrations.map((migration) => [migration.name, { up: migration.up }]));
  }
}

/**
 * Applies every pending migration. Each dialect's adapter serialises concurrent callers (an advisory
 * lock on PostgreSQL, the file's write lock on SQLite) and runs the batch in one transaction, so a
 * failure leaves the schema as it was. Throws `DataPlaneOpenError` naming the failed migration.
 */
export async function migrateToLatest(kysely: Kysely<unknown>, logger: Logger): Promise<void> {
  const migrator = new Migrator({
    db: kysely,
    provider: new CompiledMigrationProvider(MIGRATIONS),
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    const cause = error instanceof Error ? error.message : String(error);
    throw new DataPlaneOpenError(
      failed === undefined
        ? `data-plane migrations could not run: ${cause}`
        : `data-plane migration ${failed} failed (nothing from this start-up was applied): ${cause}`,
      { cause: error, migration: failed },
    );
  }
  for (const result of results)
    logger.info({ migration: result.migrationName }, 'data-plane migration applied');
}
