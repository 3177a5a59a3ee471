import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectDataPlane, openDataPlane, type DataPlane } from '../../data-plane/data-plane.js';
import { DataPlaneOpenError } from '../../data-plane/data-plane-open-error.js';
import { MIGRATION_TABLE } from '../../data-plane/migrate.js';
import { MIGRATIONS } from '../../data-plane/migrations/index.js';
import type { JobRunsTable } from '../../data-plane/schema.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';

/** A place for one data-plane store: each `openDataPlane` with these options reaches the same data. */
export interface DatabaseTarget {
  options: { url?: string; sqlitePath: string };
  dispose(): Promise<void>;
}

const logger = createLogger('silent');

function jobRun(overrides: Partial<JobRunsTable> = {}): JobRunsTable {
  return {
    id: 'run-1',
    job: 'usage-aggregation',
    trigger: 'schedule',
    started_at: '2024-05-01T01:00:00.000Z',
    finished_at: null,
    outcome: 'running',
    summary: '{}',
    error: null,
    ...overrides,
  };
}

async function tableNames(database: DataPlane): Promise<string[]> {
  const tables = await database.kysely.introspection.getTables();
  return tables.map((table) => table.name);
}

async function appliedMigrations(database: DataPlane): Promise<string[]> {
  const rows = await database.kysely
    .withTables<{ [MIGRATION_TABLE]: { name: string } }>()
    .selectFrom(MIGRATION_TABLE)
    .select('name')
    .orderBy('name')
    .execute();
  return rows.map((row) => row.name);
}

/**
 * The behaviour every `DataPlane` backend promises. `setup` returns a fresh, empty target for each case.
 */
export function describeDataPlaneContract(name: string, setup: () => Promise<DatabaseTarget>): void {
  describe(name, () => {
    let target: DatabaseTarget;
    const opened: DataPlane[] = [];

    async function open(): Promise<DataPlane> {
      const database = await openDataPlane({ ...target.options, logger });
      opened.push(database);
      return database;
    }

    async function connect(): Promise<DataPlane> {
      const database = await connectDataPlane({ ...target.options, logger });
      opened.push(database);
      return database;
    }

    beforeEach(async () => {
      target = await setup();
    });

    afterEach(async () => {
      for (const database of opened.splice(0)) await database.close();
      await target.dispose();
    });

    it('applies every migration in order, and reopening applies nothing again and keeps the data', async () => {
      const first = await open();
      expect(await appliedMigrations(first)).toEqual(MIGRATIONS.map((migration) => migration.name));
      expect(await tableNames(first)).toContain('job_runs');
      await first.kysely.insertInto('job_runs').values(jobRun()).execute();
      await first.close();

      const second = await open();
      expect(await appliedMigrations(second)).toEqual(MIGRATIONS.map((migration) => migration.name));
      expect(await second.kysely.selectFrom('job_runs').select('id').execute()).toEqual([{ id: 'run-1' }]);
    });

    it('leaves tables it does not own untouched', async () => {
      const bare = await connect();
      await sql`create table store_objects (name text primary key)`.execute(bare.kysely);
      await sql`insert into store_objects (name) values ('vpc-a')`.execute(bare.kysely);
      await bare.close();

      const database = await open();
      const rows = await sql<{ name: string }>`select name from store_objects`.execute(database.kysely);
      expect(rows.rows).toEqual([{ name: 'vpc-a' }]);
    });

    it.each([
      { text: 'plain ascii', summary: { candidates: { job_runs: 3 }, deleted: 0, dryRun: true } },
      {
        text: 'Grüße, 你好, مرحبا, 🚀🔥',
        summary: { note: 'Ünïcödé ✓', nested: { list: [1, 'zwei', null] } },
      },
      { text: `quotes ' " and \\ backslash; drop table job_runs; --`, summary: { raw: `'"\\` } },
      { text: 'line\nbreaks\tand tabs', summary: { empty: {}, nothing: null, float: 0.25 } },
    ])(
      'round-trips a job run through insert, select, update and delete: $text',
      async ({ text, summary }) => {
        const database = await open();
        const row = jobRun({ id: `run ${text}`, job: text, summary: JSON.stringify(summary) });
        await database.kysely.insertInto('job_runs').values(row).execute();

        const read = await database.kysely
          .selectFrom('job_runs')
          .selectAll()
          .where('id', '=', row.id)
          .executeTakeFirst();
        expect(read).toEqual(row);
        expect(JSON.parse(read!.summary)).toEqual(summary);

        await database.kysely
          .updateTable('job_runs')
          .set({ outcome: 'failed', finished_at: '2024-05-01T01:00:01.000Z', error: text })
          .where('id', '=', row.id)
          .execute();
        const updated = await database.kysely
          .selectFrom('job_runs')
          .select(['outcome', 'finished_at', 'error'])
          .where('id', '=', row.id)
          .executeTakeFirst();
        expect(updated).toEqual({ outcome: 'failed', finished_at: '2024-05-01T01:00:01.000Z', error: text });

        const deleted = await database.kysely
          .deleteFrom('job_runs')
          .where('id', '=', row.id)
          .executeTakeFirst();
        expect(Number(deleted.numDeletedRows)).toBe(1);
        expect(await database.kysely.selectFrom('job_runs').selectAll().execute()).toEqual([]);
      },
    );

    it.each([
      {
        failure: 'the callback throws',
        fail: async () => {
          throw new Error('boom');
        },
      },
      {
        failure: 'a primary key is duplicated',
        fail: async (database: DataPlane) => {
          await database.kysely
            .insertInto('job_runs')
            .values(jobRun({ id: 'existing' }))
            .execute();
        },
      },
      {
        failure: 'a check constraint is violated',
        fail: async (database: DataPlane) => {
          await sql`insert into job_runs (id, job, ${sql.ref('trigger')}, started_at, outcome, summary)
            values ('bad', 'j', 'schedule', '2024-05-01T00:00:00.000Z', 'exploded', '{}')`.execute(
            database.kysely,
          );
        },
      },
    ])('rolls back every write of a transaction when $failure', async ({ fail }) => {
      const database = await open();
      await database.kysely
        .insertInto('job_runs')
        .values(jobRun({ id: 'existing' }))
        .execute();

      const transaction = database.kysely.transaction().execute(async (trx) => {
        await trx
          .insertInto('job_runs')
          .values(jobRun({ id: 'written-first' }))
          .execute();
        await trx
          .updateTable('job_runs')
          .set({ outcome: 'succeeded' })
          .where('id', '=', 'existing')
          .execute();
        await fail({ ...database, kysely: trx });
      });
      await expect(transaction).rejects.toThrow();

      const rows = await database.kysely.selectFrom('job_runs').select(['id', 'outcome']).execute();
      expect(rows).toEqual([{ id: 'existing', outcome: 'running' }]);
    });

    it('answers ping while open and throws once closed', async () => {
      const database = await open();
      await expect(database.ping()).resolves.toBeUndefined();
      expect(database.activeConnections()).toBeGreaterThan(0);

      await database.close();
      await expect(database.ping()).rejects.toThrow(/closed/);
      expect(database.activeConnections()).toBe(0);
      await expect(database.close()).resolves.toBeUndefined();
    });

    it('keeps database_connections_active at the open connection count, and 0 after close', async () => {
      const metrics = createMetrics({ processMetrics: false });
      const database = await openDataPlane({ ...target.options, logger, metrics });
      opened.push(database);
      await database.kysely.selectFrom('job_runs').selectAll().execute();

      const gauge = async (): Promise<number | undefined> =>
        (await metrics.databaseConnectionsActive.get()).values[0]?.value;
      expect(await gauge()).toBe(database.activeConnections());
      expect(await gauge()).toBeGreaterThan(0);

      await database.close();
      expect(await gauge()).toBe(0);
    });

    it('loses no update when 20 transactions increment one counter at once', async () => {
      const database = await open();
      const counters = database.kysely.withTables<{ contract_counter: { id: string; value: number } }>();
      await counters.schema
        .createTable('contract_counter')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('value', 'integer', (column) => column.notNull())
        .execute();
      await counters.insertInto('contract_counter').values({ id: 'c', value: 0 }).execute();

      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          counters.transaction().execute(async (trx) => {
            await trx
              .updateTable('contract_counter')
              .set((eb) => ({ value: eb('value', '+', 1) }))
              .where('id', '=', 'c')
              .execute();
            await trx
              .withTables<{ job_runs: JobRunsTable }>()
              .insertInto('job_runs')
              .values(jobRun({ id: `run-${index}` }))
              .execute();
          }),
        ),
      );

      const counter = await counters.selectFrom('contract_counter').select('value').executeTakeFirstOrThrow();
      expect(Number(counter.value)).toBe(20);
      const runs = await database.kysely.selectFrom('job_runs').select('id').execute();
      expect(runs).toHaveLength(20);
    });

    it('refuses to start when a migration fails, naming it and applying none of it', async () => {
      // A stray index holding the name migration 0001 creates makes it fail after its table exists,
      // before any later migration has run.
      const seeded = await connect();
      await sql`create table decoy (x text)`.execute(seeded.kysely);
      await sql`create index job_runs_job_started_at_idx on decoy (x)`.execute(seeded.kysely);
      await seeded.close();

      const failure = await openDataPlane({ ...target.options, logger }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(DataPlaneOpenError);
      expect((failure as DataPlaneOpenError).migration).toBe('0001_job_runs');
      expect((failure as Error).message).toMatch(/^data-plane migration 0001_job_runs failed/);
      expect((failure as Error).message).toMatch(/job_runs_job_started_at_idx/);

      const inspected = await connect();
      expect(await tableNames(inspected)).not.toContain('job_runs');
      expect(await appliedMigrations(inspected)).toEqual([]);
    });
  });
}
