/**
 * One run of a client command: the options every command takes (`-o`, `--context`), the session
 * it talks through, and how it prints. Commands are written against this, not against
 * `process`, so the same code serves a terminal, a pipe and a test.
 */
import type { Command } from 'commander';
import type { CloudplaneClient } from '../sdk/index.js';
import { configDirectory, ConfigFile } from './config-file.js';
import { renderData, outputFormat, type OutputFormat } from './output.js';
import { resolveTarget, Session } from './session.js';
import { processTerminal, type Terminal } from './terminal.js';
import { DEFAULT_TIMEOUT, parseDuration } from './waiting.js';

/** What the client runs in: its environment variables, terminal and config file. */
export interface ClientEnvironment {
  env: NodeJS.ProcessEnv;
  terminal: Terminal;
  configFile: ConfigFile;
}

export function processEnvironment(): ClientEnvironment {
  return {
    env: process.env,
    terminal: processTerminal(process.env),
    configFile: new ConfigFile(configDirectory(process.env)),
  };
}

interface GlobalOptions {
  output?: string;
  context?: string;
}

/** `--wait` and `--timeout` of an asynchronous command. */
export interface WaitFlags {
  wait?: boolean;
  timeout: string;
}

export class Invocation {
  private session?: Session;
  readonly format: OutputFormat;

  constructor(
    readonly environment: ClientEnvironment,
    private readonly globals: GlobalOptions,
  ) {
    this.format = outputFormat(globals.output, environment.terminal.stdoutIsTty);
  }

  /** The invocation of the command whose action runs. */
  static of(command: Command, environment: ClientEnvironment): Invocation {
    return new Invocation(environment, command.optsWithGlobals<GlobalOptions>());
  }

  get terminal(): Terminal {
    return this.environment.terminal;
  }

  get contextFlag(): string | undefined {
    return this.globals.context;
  }

  sessionOf(): Session {
    this.session ??= new Session(
      this.environment.configFile,
      resolveTarget(this.environment.configFile, {
        env: this.environment.env,
        contextName: this.globals.context,
      }),
    );
    return this.session;
  }

  /** The API as the signed-in user (or the API key) sees it. */
  api(): CloudplaneClient {
    return this.sessionOf().authenticated();
  }

  /** Prints the answer: as JSON or YAML when asked (or piped), else as `table()` lays it out. */
  print(data: unknown, table: () => string): void {
    this.terminal.out(this.format === 'table' ? table() : renderData(data, this.format));
  }

  /** A line for people (a confirmation); machine formats get the answer instead. */
  say(data: unknown, line: string): void {
    this.print(data, () => `${line}\n`);
  }
}

/** `--timeout` in milliseconds. */
export function timeoutOf(flags: WaitFlags): number {
  return parseDuration(flags.timeout);
}

/** Adds `--wait` and `--timeout` to an asynchronous command. */
export function withWait(command: Command, what: string): Command {
  return command
    .option('--wait', `wait until ${what}`)
    .option('--timeout <duration>', 'how long --wait waits (30s, 10m, 1h)', DEFAULT_TIMEOUT);
}

/** Adds an `Examples:` section to the command's help. */
export function withExamples(command: Command, examples: readonly string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${examples.map((line) => `  $ ${line}`).join('\n')}\n`);
}

/** The body of a bare (not enveloped) answer. */
export function answerOf<T>(result: { data?: T; response: Response }): NonNullable<T> {
  if (result.data === undefined || result.data === null) {
    throw new TypeError(`the answer (${result.response.status}) has no body`);
  }
  return result.data;
}
