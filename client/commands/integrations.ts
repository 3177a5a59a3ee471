/** `integrations`: connections to code hosts, chat, pagers, monitors and edge networks. */
import { Command } from 'commander';
import { answerOf, Invocation, withExamples, type ClientEnvironment } from '../invocation.js';
import { renderFields, renderTable } from '../output.js';
import { parsePairs } from './vault.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const integrationPath = (id: string) => ({ params: { path: { id } } });

export function integrationCommands(environment: ClientEnvironment): Command {
  const integrations = new Command('integrations').description('connections to outside services');

  withExamples(
    integrations
      .command('create')
      .description('connect an integration')
      .argument('<name>')
      .requiredOption('--type <type>', 'codehost, edgenet, monitor, pager or chat')
      .option('--credential <key=value>', 'a credential field (repeatable)', collect)
      .option('--config <key=value>', 'a configuration field (repeatable)', collect)
      .action(
        async (
          name: string,
          flags: { type: string; credential?: string[]; config?: string[] },
          cmd: Command,
        ) => {
          const run = Invocation.of(cmd, environment);
          // The document describes both as free-form objects, which the SDK types as empty.
          const body = {
            name,
            type: flags.type,
            credentials: parsePairs(flags.credential ?? []) as Record<string, never>,
            ...(flags.config && { configuration: parsePairs(flags.config) as Record<string, never> }),
          };
          const created = answerOf(await run.api().POST('/api/v1/integrations', { body }));
          run.say(created, `Created integration ${created.id} (${created.type}, ${created.status})`);
        },
      ),
    ['cloudplane integrations create alerts --type chat --credential webhook_url=https://chat.example/hook'],
  );

  withExamples(
    integrations
      .command('list')
      .description("list the organization's integrations")
      .action(async (_flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = answerOf(await run.api().GET('/api/v1/integrations'));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'type', value: (row) => row.type },
            { header: 'status', value: (row) => row.status },
            { header: 'enabled', value: (row) => row.enabled },
          ]),
        );
      }),
    ['cloudplane integrations list'],
  );

  withExamples(
    integrations
      .command('get')
      .description('show an integration')
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const integration = answerOf(await run.api().GET('/api/v1/integrations/{id}', integrationPath(id)));
        run.print(integration, () => renderFields(Object.entries(integration)));
      }),
    ['cloudplane integrations get 6f1c…'],
  );

  withExamples(
    integrations
      .command('health')
      .description("an integration's health")
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const health = answerOf(await run.api().GET('/api/v1/integrations/{id}/health', integrationPath(id)));
        run.print(health, () => renderFields(Object.entries(health)));
      }),
    ['cloudplane integrations health 6f1c…'],
  );

  withExamples(
    integrations
      .command('test')
      .description('send a test through an integration')
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const test = answerOf(await run.api().POST('/api/v1/integrations/{id}/test', integrationPath(id)));
        run.print(test, () => renderFields(Object.entries(test)));
      }),
    ['cloudplane integrations test 6f1c…'],
  );

  withExamples(
    integrations
      .command('delete')
      .description('delete an integration')
      .argument('<id>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        await run.api().DELETE('/api/v1/integrations/{id}', integrationPath(id));
        run.say({ deleted: id }, `Deleted integration ${id}`);
      }),
    ['cloudplane integrations delete 6f1c…'],
  );
  return withExamples(integrations, ['cloudplane integrations list']);
}
