/** `context list|use|current|delete`: the servers and credentials kept, like kubectl's contexts. */
import { Command } from 'commander';
import { UsageError } from '../failures.js';
import { Invocation, withExamples, type ClientEnvironment } from '../invocation.js';
import { renderTable } from '../output.js';

export function contextCommands(environment: ClientEnvironment): Command {
  const context = new Command('context').description(
    'the contexts kept in the config file: a server and who is signed in',
  );

  const list = context
    .command('list')
    .description('list the contexts')
    .action((_flags: object, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const config = environment.configFile.read();
      const rows = Object.entries(config.contexts).map(([name, entry]) => ({
        current: name === config.current_context,
        name,
        server: entry.server,
        user: entry.user ?? null,
        credentials: entry.credentials?.type ?? null,
      }));
      run.print(rows, () =>
        renderTable(rows, [
          { header: '', value: (row) => (row.current ? '*' : '') },
          { header: 'name', value: (row) => row.name },
          { header: 'server', value: (row) => row.server },
          { header: 'user', value: (row) => row.user },
          { header: 'credentials', value: (row) => row.credentials ?? 'signed out' },
        ]),
      );
    });
  withExamples(list, ['cloudplane context list']);

  const use = context
    .command('use')
    .description('make a context the current one')
    .argument('<name>')
    .action((name: string, _flags: object, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      environment.configFile.update((config) => {
        if (!config.contexts[name]) throw new UsageError(`no context named ${JSON.stringify(name)}`);
        config.current_context = name;
      });
      run.say({ current_context: name }, `Using context ${name}`);
    });
  withExamples(use, ['cloudplane context use staging']);

  const current = context
    .command('current')
    .description('the current context')
    .action((_flags: object, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const name = environment.configFile.read().current_context;
      if (name === undefined) throw new UsageError('no current context: run cloudplane login');
      run.say({ current_context: name }, name);
    });
  withExamples(current, ['cloudplane context current']);

  const remove = context
    .command('delete')
    .description('forget a context and its credentials')
    .argument('<name>')
    .action((name: string, _flags: object, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      environment.configFile.update((config) => {
        if (!config.contexts[name]) throw new UsageError(`no context named ${JSON.stringify(name)}`);
        delete config.contexts[name];
        if (config.current_context === name) delete config.current_context;
      });
      run.say({ deleted: name }, `Deleted context ${name}`);
    });
  withExamples(remove, ['cloudplane context delete staging']);

  return withExamples(context, ['cloudplane context list', 'cloudplane context use production']);
}
