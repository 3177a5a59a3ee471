import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, Migrator, sql, type Migration } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from '../../data-plane/migrate.js';
import { MIGRATIONS } from '../../data-plane/migrations/index.js';
import { openSqliteDialect } from '../../data-plane/sqlite.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function migrator(db: Kysely<unknown>) {
  const migrations: Record<string, Migration> = Object.fromEntries(
    MIGRATIONS.map((migration) => [migration.name, { up: migration.up }]),
  );
  return new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
}

describe('migration 0010_organization_teams on a data plane with members', () => {
  it('keeps every membership while it rebuilds the table, and then takes the viewer role', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-migration-'));
    dirs.push(dir);
    const db = new Kysely<unknown>({ dialect: openSqliteDialect(path.join(dir, 'data-plane.db')).dialect });
    try {
      expect((await migrator(db).migrateTo('0009_integration_verification')).error).toBeUndefined();
      const at = '2026-01-01T00:00:00.000Z';
      await sql`insert into users (id, email, name, email_verified, two_factor_enabled, created_at, updated_at)
        values ('usr_a', 'a@example.com', 'A', 1, 0, ${at}, ${at}), ('usr_b', 'b@example.com', 'B', 1, 0, ${at}, ${at})`.execute(
        db,
      );
      await sql`insert into organizations (id, name, created_at) values ('org_a', 'A team', ${at})`.execute(
        db,
      );
      await sql`insert into organization_members (organization_id, user_id, role, created_at)
        values ('org_a', 'usr_a', 'owner', ${at}), ('org_a', 'usr_b', 'member', ${at})`.execute(db);

      expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
      const { rows } = await sql<{ user_id: string; role: string }>`
        select user_id, role from organization_members order by user_id`.execute(db);
      expect(rows).toEqual([
        { user_id: 'usr_a', role: 'owner' },
        { user_id: 'usr_b', role: 'member' },
      ]);
      await sql`update organization_members set role = 'viewer' where user_id = 'usr_b'`.execute(db);
      await expect(
        sql`update organization_members set role = 'root' where user_id = 'usr_b'`.execute(db),
      ).rejects.toThrow(/CHECK constraint/);
    } finally {
      await db.destroy();
    }
  });
});
