/**
 * The client half of the `cloudplane` binary: every command that is not a server command. Built
 * on commander, one module per command family under `commands/`, all of them speaking to the
 * REST API through the typed SDK. Exit codes: 0 ok, 1 error, 2 usage.
 */
import { Command, CommanderError, Option } from 'commander';
import { apiKeyCommands } from './commands/api-keys.js';
import { authCommands } from './commands/auth.js';
import { backupCommands } from './commands/backups.js';
import { completionCommand } from './commands/completion.js';
import { contextCommands } from './commands/context.js';
import { databaseCommands } from './commands/databases.js';
import { eventsCommand } from './commands/events.js';
import { integrationCommands } from './commands/integrations.js';
import { stackCommands } from './commands/stacks.js';
import { streamingCommands } from './commands/streaming.js';
import { usageCommand } from './commands/usage.js';
import { vaultCommands } from './commands/vault.js';
import { vpcCommands } from './commands/vpc.js';
import { describeFailure, EXIT_OK, EXIT_USAGE, exitCodeOf } from './failures.js';
import { processEnvironment, type ClientEnvironment } from './invocation.js';
import { OUTPUT_FORMATS } from './output.js';

/** Applies to every command below it: commander's own usage errors exit 2, as ours do. */
function configure(command: Command, environment: ClientEnvironment): void {
  command
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (text) => environment.terminal.out(text),
      writeErr: (text) => environment.terminal.err(text),
    });
  for (const child of command.commands) configure(child, environment);
}

/** The client's command tree. */
export function clientProgram(environment: ClientEnvironment): Command {
  const program = new Command('cloudplane')
    .description(
      'the cloudplane command line: manage VPCs, vaults, databases, stacks and streaming clusters through the API',
    )
    .addOption(
      new Option(
        '-o, --output <format>',
        'table, json or yaml (default: table on a terminal, json otherwise)',
      ).choices(OUTPUT_FORMATS),
    )
    .option('--context <name>', 'use this context instead of the current one')
    .addHelpText(
      'after',
      '\nEnvironment:\n  CLOUDPLANE_URL, CLOUDPLANE_API_KEY   win over the config file (for CI)\n' +
        '  XDG_CONFIG_HOME                      where cloudplane/config.json is kept (~/.config)\n' +
        '  NO_COLOR                             no colour\n',
    );
  for (const command of [
    ...authCommands(environment),
    contextCommands(environment),
    apiKeyCommands(environment),
    vpcCommands(environment),
    vaultCommands(environment),
    integrationCommands(environment),
    databaseCommands(environment),
    backupCommands(environment),
    streamingCommands(environment),
    stackCommands(environment),
    usageCommand(environment),
    eventsCommand(environment),
  ]) {
    program.addCommand(command);
  }
  program.addCommand(completionCommand(environment, program));
  configure(program, environment);
  return program;
}

/** Runs a client command; resolves to its exit code. */
export async function runClient(
  argv: readonly string[],
  environment = processEnvironment(),
): Promise<number> {
  const program = clientProgram(environment);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    environment.terminal.err(`${describeFailure(error)}\n`);
    return exitCodeOf(error);
  }
}

/** The client's commands, for the binary's help: `  name   description` lines. */
export function clientCommandList(environment = processEnvironment()): string {
  const commands = clientProgram(environment).commands;
  const width = Math.max(...commands.map((command) => command.name().length));
  return commands
    .map((command) => `  ${command.name().padEnd(width + 2)} ${command.description()}`)
    .join('\n');
}
