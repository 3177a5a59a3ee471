/** `databases`: managed databases, their credentials (kept in the managed vault) and rotation. */
import { Command } from 'commander';
import { dataOf, type paths } from '../../sdk/index.js';
import { ClientError } from '../failures.js';
import {
  answerOf,
  Invocation,
  timeoutOf,
  withExamples,
  withWait,
  type ClientEnvironment,
  type WaitFlags,
} from '../invocation.js';
import { renderFields, renderTable } from '../output.js';
import { untilGone, waitFor } from '../waiting.js';

type Database = paths['/v1/databases/{id}']['get']['responses'][200]['content']['application/json']['data'];

const databasePath = (id: string) => ({ params: { path: { id } } });

const endpointOf = (database: Database) =>
  database.endpoint ? `${database.endpoint.host}:${database.endpoint.port}` : '';

export function databaseCommands(environment: ClientEnvironment): Command {
  const databases = new Command('databases').alias('db').description('managed databases');

  withExamples(
    withWait(
      databases
        .command('create')
        .description('create a database')
        .argument('<name>')
        .requiredOption('--engine <engine>', 'one of the engines (cloudplane databases versions)')
        .option('--version <version>', "one of the engine's versions (cloudplane databases versions)")
        .option('--plan <plan>', 'a plan of the catalogue')
        .option('--storage-gb <n>', 'storage in GB', (value) => Number(value))
        .option('--memory-mb <n>', 'memory in MB (redis)', (value) => Number(value)),
      'it is available',
    ).action(
      async (
        name: string,
        flags: WaitFlags & {
          engine: string;
          version?: string;
          plan?: string;
          storageGb?: number;
          memoryMb?: number;
        },
        cmd: Command,
      ) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const body = {
          name,
          engine: flags.engine,
          ...(flags.version !== undefined && { version: flags.version }),
          ...(flags.plan !== undefined && { plan: flags.plan }),
          ...(flags.storageGb !== undefined && { storage_gb: flags.storageGb }),
          ...(flags.memoryMb !== undefined && { memory_mb: flags.memoryMb }),
        };
        const created = dataOf(await api.POST('/v1/databases', { body }));
        const database = flags.wait
          ? await waitFor<Database>({
              terminal: run.terminal,
              what: `database ${name}`,
              timeoutMs: timeoutOf(flags),
              async poll() {
                const current = dataOf(await api.GET('/v1/databases/{id}', databasePath(created.id!)));
                // A recorded database is as far as this platform takes it: it never becomes available.
                if (current.status === 'available' || current.status === 'recorded') {
                  return { state: 'done', value: current, status: current.status };
                }
                if (current.status === 'error')
                  return { state: 'failed', message: current.message ?? 'error' };
                return { state: 'pending', status: current.message ?? current.status ?? 'provisioning' };
              },
            })
          : created;
        run.say(database, `Created database ${database.id} (${database.engine}, ${database.status})`);
      },
    ),
    [
      'cloudplane databases create orders --engine postgresql --version 16 --storage-gb 10 --wait',
      'cloudplane databases create shop --engine mariadb',
    ],
  );

  withExamples(
    databases
      .command('versions')
      .description('the engines and versions a database may ask for')
      .action(async (_flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = dataOf(await run.api().GET('/v1/databases/versions'));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'engine', value: (row) => row.engine },
            { header: 'runs', value: (row) => row.product },
            { header: 'versions', value: (row) => row.versions?.join(', ') },
            { header: 'default', value: (row) => row.default_version },
            { header: 'also named', value: (row) => row.aliases?.join(', ') },
          ]),
        );
      }),
    ['cloudplane databases versions', 'cloudplane db versions -o json'],
  );

  withExamples(
    databases
      .command('list')
      .description("list the organization's databases")
      .action(async (_flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = dataOf(await run.api().GET('/v1/databases'));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'engine', value: (row) => row.engine },
            { header: 'version', value: (row) => row.version },
            { header: 'status', value: (row) => row.status },
            { header: 'endpoint', value: (row) => endpointOf(row) },
          ]),
        );
      }),
    ['cloudplane databases list', 'cloudplane db list -o json'],
  );

  withExamples(
    databases
      .command('get')
      .description('show a database')
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const database = dataOf(await run.api().GET('/v1/databases/{id}', databasePath(id)));
        run.print(database, () =>
          renderFields(
            Object.entries({
              ...database,
              endpoint: endpointOf(database),
              credentials: database.credentials?.vault_path,
            }),
          ),
        );
      }),
    ['cloudplane databases get db_0a1b…'],
  );

  withExamples(
    withWait(
      databases.command('delete').description('delete a database').argument('<id>'),
      'it is gone',
    ).action(async (id: string, flags: WaitFlags, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const api = run.api();
      await api.DELETE('/v1/databases/{id}', databasePath(id));
      if (flags.wait) {
        await waitFor({
          terminal: run.terminal,
          what: `database ${id}`,
          timeoutMs: timeoutOf(flags),
          poll: untilGone(async () => dataOf(await api.GET('/v1/databases/{id}', databasePath(id))).status),
        });
      }
      run.say({ deleted: id }, `Deleted database ${id}`);
    }),
    ['cloudplane databases delete db_0a1b… --wait'],
  );

  withExamples(
    databases
      .command('credentials')
      .description("print the database's connection string, read from the vault path the API names")
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const database = dataOf(await api.GET('/v1/databases/{id}', databasePath(id)));
        const { vault_cluster_id, vault_path } = database.credentials ?? {};
        if (!vault_cluster_id || !vault_path) {
          throw new ClientError(
            `database ${id} has no credentials yet (${database.status}); try again when it is available`,
          );
        }
        const secret = answerOf(
          await api.GET('/api/v1/vault/{id}/secret/{path}', {
            params: { path: { id: vault_cluster_id, path: vault_path } },
          }),
        );
        const data = ((secret.data ?? {}) as { data?: Record<string, unknown> }).data ?? {};
        run.print(data, () => `${String(data.connection_string ?? '')}\n`);
      }),
    [
      'cloudplane databases credentials db_0a1b…',
      'psql "$(cloudplane databases credentials db_0a1b… -o table)"',
    ],
  );

  withExamples(
    databases
      .command('rotate')
      .description("rotate the database's password")
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rotated = dataOf(
          await run.api().POST('/v1/databases/{id}/credentials/rotate', databasePath(id)),
        );
        run.say(rotated, `Rotated the password of ${id} (version ${rotated.credentials?.version ?? '?'})`);
      }),
    ['cloudplane databases rotate db_0a1b…'],
  );
  return withExamples(databases, [
    'cloudplane databases create orders --engine postgresql --wait',
    'cloudplane databases credentials db_0a1b…',
  ]);
}
