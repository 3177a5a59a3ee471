import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDataPlane, type DataPlane } from '../../data-plane/data-plane.js';
import { DataPlaneOpenError } from '../../data-plane/data-plane-open-error.js';
import { MIGRATION_TABLE } from '../../data-plane/migrate.js';
import { MIGRATIONS } from '../../data-plane/migrations/index.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { preparedQuery } from '../../data-plane/prepared-query.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { describeDataPlaneContract, type DatabaseTarget } from './data-plane.contract.js';

const logger = createLogger('silent');

async function postgresTarget(): Promise<DatabaseTarget> {
  const created = await createTestPostgresDatabase();
  if (created === undefined) throw new Error('CLOUDPLANE_TEST_DATABASE_URL is not set');
  return { options: { url: created.url, sqlitePath: '/nonexistent/unused.db' }, dispose: created.drop };
}

describeWithPostgres('DataPlane on PostgreSQL', () => {
  describeDataPlaneContract('contract', postgresTarget);

  describe('dialect specifics', () => {
    let created: TestPostgresDatabase | undefined;
    const opened: DataPlane[] = [];

    afterEach(async () => {
      for (const database of opened.splice(0)) await database.close();
      await created?.drop();
    });

    it('migrates once when several replicas start at the same moment', async () => {
      created = await createTestPostgresDatabase();
      const replicas = await Promise.all(
        Array.from({ length: 4 }, () => openDataPlane({ url: created!.url, sqlitePath: '/unused', logger })),
      );
      opened.push(...replicas);

      const applied = await replicas[0]!.kysely
        .withTables<{ [MIGRATION_TABLE]: { name: string } }>()
        .selectFrom(MIGRATION_TABLE)
        .select('name')
        .orderBy('name')
        .execute();
      expect(applied.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
      for (const replica of replicas) await expect(replica.ping()).resolves.toBeUndefined();
    });

    it('offers its pg pool to components that speak PostgreSQL directly, and no commit mark', async () => {
      created = await createTestPostgresDatabase();
      const database = await openDataPlane({ url: created!.url, sqlitePath: '/unused', logger });
      opened.push(database);

      expect(database.dialect).toBe('postgres');
      const result = await database.pgPool!.query<{ answer: number }>('select 42 as answer');
      expect(result.rows).toEqual([{ answer: 42 }]);
      // Other replicas commit unseen: no mark, so caches of its reads always read.
      expect(database.commitMark()).toBeUndefined();
    });

    it('counts every statement its pool sends, and runs prepared queries as named statements', async () => {
      created = await createTestPostgresDatabase();
      const metrics = createMetrics({ processMetrics: false });
      const database = await openDataPlane({ url: created!.url, sqlitePath: '/unused', logger, metrics });
      opened.push(database);
      const sent = async () => (await metrics.databaseQueriesTotal.get()).values[0]?.value ?? 0;

      const before = await sent();
      await database.pgPool!.query('select 1');
      await database.kysely.transaction().execute((trx) => trx.selectFrom('users').select('id').execute());
      // begin, select, commit
      expect((await sent()) - before).toBe(4);

      const readEmail = preparedQuery((db, id: string) =>
        db.selectFrom('users').select('email').where('id', '=', id),
      );
      // On one connection, three calls: PostgreSQL holds the statement once, under its name.
      const prepared = await database.kysely.connection().execute(async (connection) => {
        for (let call = 0; call < 3; call++) expect(await readEmail(connection, 'nobody')).toEqual([]);
        const { rows } = await sql<{ name: string }>`
          select name from pg_prepared_statements where statement like ${'%"email"%'}`.execute(connection);
        return rows;
      });
      expect(prepared).toEqual([{ name: expect.stringMatching(/^cloudplane_\d+$/) }]);
    });
  });
});

describe('DataPlane on an unreachable PostgreSQL server', () => {
  it('fails with an error naming the server and database but never the password', async () => {
    const failure = openDataPlane({
      url: 'postgresql://operator:s3cr3t-pw@127.0.0.1:1/cloudplane',
      sqlitePath: '/unused',
      logger,
    });
    await expect(failure).rejects.toBeInstanceOf(DataPlaneOpenError);
    const message = await failure.then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message).toMatch(
      /^cannot reach the data-plane database at postgres:\/\/127\.0\.0\.1:1\/cloudplane: /,
    );
    expect(message).not.toContain('s3cr3t-pw');
  });
});
