import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashCompletion, commandPaths, fishCompletion } from '../../client/commands/completion.js';
import { configDirectory, ConfigFile } from '../../client/config-file.js';
import type { ClientEnvironment } from '../../client/invocation.js';
import { clientProgram } from '../../client/program.js';
import { resolveTarget } from '../../client/session.js';
import { colorsFor, type Terminal } from '../../client/terminal.js';

let directory: string;
let file: ConfigFile;
beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-client-config-'));
  file = new ConfigFile(path.join(directory, 'cloudplane'));
});
afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

const session = {
  type: 'session' as const,
  token: 't',
  refresh_token: 'r',
  expires_at: '2030-01-01T00:00:00Z',
};

describe('the config file', () => {
  it.each([
    { env: { XDG_CONFIG_HOME: '/x', HOME: '/home/a' }, directory: '/x/cloudplane' },
    { env: { HOME: '/home/a' }, directory: '/home/a/.config/cloudplane' },
  ])('lives in $directory', ({ env, directory: expected }) => {
    expect(configDirectory(env)).toBe(expected);
  });

  it('is written 0600 in a 0700 directory, and reads back', () => {
    file.write({ current_context: 'a', contexts: { a: { server: 'http://a', credentials: session } } });
    expect(fs.statSync(file.path).mode & 0o777).toBe(0o600);
    expect(fs.statSync(file.directory).mode & 0o777).toBe(0o700);
    expect(file.read().contexts.a?.credentials).toEqual(session);
  });

  it('reads as empty before the first login', () => {
    expect(file.read()).toEqual({ contexts: {} });
  });
});

describe('which server and credentials a command uses', () => {
  beforeEach(() => {
    file.write({
      current_context: 'prod',
      contexts: {
        prod: { server: 'https://prod.example', credentials: session },
        staging: {
          server: 'https://staging.example',
          credentials: { type: 'api_key', api_key: 'k-staging' },
        },
      },
    });
  });

  it.each([
    {
      case: 'the current context',
      env: {},
      context: undefined,
      server: 'https://prod.example',
      credentials: 'session',
    },
    {
      case: '--context',
      env: {},
      context: 'staging',
      server: 'https://staging.example',
      credentials: 'api_key',
    },
    {
      case: 'CLOUDPLANE_API_KEY over the context',
      env: { CLOUDPLANE_API_KEY: 'k-env' },
      context: undefined,
      server: 'https://prod.example',
      credentials: 'api_key',
    },
    {
      case: 'CLOUDPLANE_URL of another server: no context credentials sent there',
      env: { CLOUDPLANE_URL: 'https://other.example' },
      context: undefined,
      server: 'https://other.example',
      credentials: undefined,
    },
  ])('$case', ({ env, context, server, credentials }) => {
    const target = resolveTarget(file, { env, contextName: context });
    expect(target.server).toBe(server);
    expect(target.credentials?.type).toBe(credentials);
  });

  it('refuses a context that does not exist as a usage error', () => {
    expect(() => resolveTarget(file, { env: {}, contextName: 'nope' })).toThrow(
      expect.objectContaining({ name: 'UsageError' }),
    );
  });
});

describe('the command tree', () => {
  const terminal: Terminal = {
    out: () => {},
    err: () => {},
    stdoutIsTty: false,
    stderrIsTty: false,
    stdinIsTty: false,
    colors: colorsFor(false, {}),
    errColors: colorsFor(false, {}),
    prompt: () => Promise.resolve(''),
    readStdin: () => Promise.resolve(''),
  };
  const environment: ClientEnvironment = { env: {}, terminal, configFile: new ConfigFile('/nonexistent') };
  const program = clientProgram(environment);
  const all: [string, Command][] = [];
  const walk = (command: Command, name: string) => {
    for (const child of command.commands) {
      const path = name ? `${name} ${child.name()}` : child.name();
      all.push([path, child]);
      walk(child, path);
    }
  };
  walk(program, '');

  it.each(all)('cloudplane %s --help has a description and an example', (_path, command) => {
    expect(command.description()).not.toBe('');
    let help = '';
    command.configureOutput({ writeOut: (text) => (help += text) });
    command.outputHelp();
    expect(help).toMatch(/\nExamples:\n {2}\$ cloudplane /);
  });

  it('completes every command path in bash and fish', () => {
    const paths = commandPaths(program);
    expect(paths.get('')).toEqual(
      expect.arrayContaining(['vpc', 'stacks', 'login', '--output', '--context']),
    );
    expect(paths.get('stacks jobs')).toEqual(expect.arrayContaining(['logs']));
    const bash = bashCompletion(program);
    expect(bash).toContain('complete -F _cloudplane cloudplane');
    expect(bash).toContain('"vault kv") words="put get list delete --help" ;;');
    expect(fishCompletion(program)).toContain(
      `-n 'test "(__cloudplane_path)" = "vpc subnets"' -a 'list create delete --help'`,
    );
  });
});
