import { Migrator, sql, type Kysely, type MigrationProvider, type Migration } from 'kysely';
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
  if (await isCurrent(kysely)) return;
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

/**
 * Whether the history records exactly the compiled migrations: one query on every start-up but the
 * first, instead of the migrator's table checks and lock round trips. A batch commits in one
 * transaction, so a concurrent migration is seen whole or not at all; anything else (no history
 * yet, migrations missing or unknown) goes to the migrator, which applies or reports it.
 */
async function isCurrent(kysely: Kysely<unknown>): Promise<boolean> {
  const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`
    .execute(kysely)
    .then(({ rows }) => rows.map((row) => row.name).sort())
    .catch(() => undefined);
  const compiled = MIGRATIONS.map((migration) => migration.name).sort();
  return applied?.length === compiled.length && applied.every((name, index) => name === compiled[index]);
}
