import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('job_runs')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('job', 'text', (column) => column.notNull())
    .addColumn('trigger', 'text', (column) => column.notNull())
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('outcome', 'text', (column) => column.notNull())
    .addColumn('summary', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('error', 'text')
    .addCheckConstraint('job_runs_trigger_check', sql`${sql.ref('trigger')} in ('schedule', 'manual')`)
    .addCheckConstraint(
      'job_runs_outcome_check',
      sql`${sql.ref('outcome')} in ('running', 'succeeded', 'failed')`,
    )
    .execute();
  await db.schema
    .createIndex('job_runs_job_started_at_idx')
    .on('job_runs')
    .columns(['job', 'started_at'])
    .execute();
}
