/** `api-keys`: keys for CI and scripts, scoped, shown once. */
import { Command } from 'commander';
import { dataOf } from '../../sdk/index.js';
import { Invocation, withExamples, type ClientEnvironment } from '../invocation.js';
import { renderTable } from '../output.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function apiKeyCommands(environment: ClientEnvironment): Command {
  const keys = new Command('api-keys').description('API keys of the current organization');

  withExamples(
    keys
      .command('create')
      .description('create an API key; the key is shown only now')
      .argument('<name>')
      .requiredOption('--scope <scope>', 'a scope such as vpc:read or databases:write (repeatable)', collect)
      .option('--expires-at <time>', 'when it stops working (ISO 8601)')
      .action(async (name: string, flags: { scope: string[]; expiresAt?: string }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const body = { name, scopes: flags.scope, ...(flags.expiresAt && { expires_at: flags.expiresAt }) };
        const key = dataOf(await run.api().POST('/v1/auth/api-keys', { body }));
        run.say(key, `Created API key ${key.id}. It is shown only now:\n${key.key}`);
      }),
    ['cloudplane api-keys create ci --scope vpc:read --scope databases:write'],
  );

  withExamples(
    keys
      .command('list')
      .description('list your API keys (never the keys themselves)')
      .action(async (_flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = dataOf(await run.api().GET('/v1/auth/api-keys'));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'prefix', value: (row) => row.prefix },
            { header: 'scopes', value: (row) => row.scopes },
            { header: 'expires', value: (row) => row.expires_at ?? 'never' },
            { header: 'last used', value: (row) => row.last_used_at },
          ]),
        );
      }),
    ['cloudplane api-keys list'],
  );

  withExamples(
    keys
      .command('delete')
      .description('delete an API key; it stops working at once')
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        await run.api().DELETE('/v1/auth/api-keys/{id}', { params: { path: { id } } });
        run.say({ deleted: id }, `Deleted API key ${id}`);
      }),
    ['cloudplane api-keys delete key_0a1b…'],
  );
  return withExamples(keys, ['cloudplane api-keys create ci --scope vpc:read', 'cloudplane api-keys list']);
}
