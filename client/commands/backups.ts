/** `backups`: backups of databases and shares, and restoring them. */
import { Command } from 'commander';
import { dataOf, type paths } from '../../sdk/index.js';
import {
  Invocation,
  timeoutOf,
  withExamples,
  withWait,
  type ClientEnvironment,
  type WaitFlags,
} from '../invocation.js';
import { renderFields, renderTable } from '../output.js';
import { waitFor } from '../waiting.js';

type Backup = paths['/v1/backups/{id}']['get']['responses'][200]['content']['application/json']['data'];
type Restore =
  paths['/v1/backups/{id}/restores/{restore_id}']['get']['responses'][200]['content']['application/json']['data'];

const backupPath = (id: string) => ({ params: { path: { id } } });

export function backupCommands(environment: ClientEnvironment): Command {
  const backups = new Command('backups').description('backups of databases and NFS shares');

  withExamples(
    withWait(
      backups
        .command('create')
        .description('back up a database or a share now')
        .argument('<resource>', 'the database or share id')
        .option('--retention-days <n>', 'how long it is kept (default 7)', (value) => Number(value)),
      'it completed',
    ).action(async (resource: string, flags: WaitFlags & { retentionDays?: number }, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const api = run.api();
      const body = {
        resource_id: resource,
        ...(flags.retentionDays !== undefined && { retention_days: flags.retentionDays }),
      };
      const created = dataOf(await api.POST('/v1/backups', { body }));
      const backup = flags.wait
        ? await waitFor<Backup>({
            terminal: run.terminal,
            what: `backup of ${resource}`,
            timeoutMs: timeoutOf(flags),
            async poll() {
              const current = dataOf(await api.GET('/v1/backups/{id}', backupPath(created.id!)));
              if (current.status === 'completed')
                return { state: 'done', value: current, status: 'completed' };
              if (current.status === 'failed')
                return { state: 'failed', message: current.message ?? 'failed' };
              return { state: 'pending', status: current.status ?? 'pending' };
            },
          })
        : created;
      run.say(backup, `Backup ${backup.id} of ${resource}: ${backup.status}`);
    }),
    ['cloudplane backups create db_0a1b… --wait'],
  );

  withExamples(
    backups
      .command('list')
      .description("list the organization's backups")
      .action(async (_flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = dataOf(await run.api().GET('/v1/backups'));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'resource', value: (row) => row.resource_id },
            { header: 'status', value: (row) => row.status },
            { header: 'size', value: (row) => row.size_bytes },
            { header: 'scheduled', value: (row) => row.scheduled },
            { header: 'created', value: (row) => row.created_at },
          ]),
        );
      }),
    ['cloudplane backups list'],
  );

  withExamples(
    backups
      .command('get')
      .description('show a backup')
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const backup = dataOf(await run.api().GET('/v1/backups/{id}', backupPath(id)));
        run.print(backup, () => renderFields(Object.entries(backup)));
      }),
    ['cloudplane backups get bkp_0a1b…'],
  );

  withExamples(
    withWait(
      backups
        .command('restore')
        .description('restore a backup into its database, or into another with --target')
        .argument('<id>')
        .option('--target <resource>', 'restore into this database instead'),
      'the restore completed',
    ).action(async (id: string, flags: WaitFlags & { target?: string }, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const api = run.api();
      const body = flags.target === undefined ? {} : { target_resource_id: flags.target };
      const started = dataOf(await api.POST('/v1/backups/{id}/restore', { ...backupPath(id), body }));
      const restore = flags.wait
        ? await waitFor<Restore>({
            terminal: run.terminal,
            what: `restore of ${id}`,
            timeoutMs: timeoutOf(flags),
            async poll() {
              const current = dataOf(
                await api.GET('/v1/backups/{id}/restores/{restore_id}', {
                  params: { path: { id, restore_id: started.restore_id! } },
                }),
              );
              if (current.status === 'completed')
                return { state: 'done', value: current, status: 'completed' };
              if (current.status === 'failed')
                return { state: 'failed', message: current.message ?? 'failed' };
              return { state: 'pending', status: current.status ?? 'running' };
            },
          })
        : started;
      run.say(restore, `Restore ${restore.restore_id} into ${restore.target_resource_id}: ${restore.status}`);
    }),
    [
      'cloudplane backups restore bkp_0a1b… --wait',
      'cloudplane backups restore bkp_0a1b… --target db_9f8e… --wait',
    ],
  );

  withExamples(
    backups
      .command('delete')
      .description('delete a backup and its dump')
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        await run.api().DELETE('/v1/backups/{id}', backupPath(id));
        run.say({ deleted: id }, `Deleted backup ${id}`);
      }),
    ['cloudplane backups delete bkp_0a1b…'],
  );
  return withExamples(backups, ['cloudplane backups create db_0a1b… --wait', 'cloudplane backups list']);
}
