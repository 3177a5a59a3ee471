/** `signup`, `login`, `logout`, `whoami`: accounts and the credentials a context keeps. */
import { Command } from 'commander';
import { CloudplaneError, createCloudplaneClient, dataOf } from '../../sdk/index.js';
import type { Credentials } from '../config-file.js';
import { UsageError } from '../failures.js';
import { Invocation, withExamples, type ClientEnvironment } from '../invocation.js';
import { renderFields } from '../output.js';

interface ServerFlag {
  server?: string;
}

/** `--server`, else `CLOUDPLANE_URL`, else the server of the context in use. */
function serverFor(run: Invocation, flags: ServerFlag): string {
  const config = run.environment.configFile.read();
  const contextName = run.contextFlag ?? config.current_context;
  const server =
    flags.server ??
    run.environment.env.CLOUDPLANE_URL ??
    (contextName === undefined ? undefined : config.contexts[contextName]?.server);
  if (!server) throw new UsageError('which server? pass --server URL');
  return server.replace(/\/+$/, '');
}

async function passwordOf(
  run: Invocation,
  fromStdin: boolean | undefined,
  confirm: boolean,
): Promise<string> {
  if (fromStdin) return (await run.terminal.readStdin()).replace(/\r?\n$/, '');
  if (!run.terminal.stdinIsTty)
    throw new UsageError('no terminal to ask the password on: pass --password-stdin');
  const password = await run.terminal.prompt('Password: ', { hidden: true });
  if (confirm && (await run.terminal.prompt('Password again: ', { hidden: true })) !== password) {
    throw new UsageError('the passwords differ');
  }
  return password;
}

async function answerOrAsk(run: Invocation, given: string | undefined, question: string, flag: string) {
  if (given !== undefined) return given;
  if (!run.terminal.stdinIsTty) throw new UsageError(`no terminal to ask on: pass ${flag}`);
  return (await run.terminal.prompt(question)).trim();
}

function signupCommand(environment: ClientEnvironment): Command {
  const command = new Command('signup')
    .description('create an account and its organization')
    .option('--server <url>', 'the platform to sign up on')
    .option('--email <email>', 'your e-mail address')
    .option('--name <name>', 'your name')
    .option('--password-stdin', 'read the password from stdin instead of asking')
    .action(
      async (
        flags: ServerFlag & { email?: string; name?: string; passwordStdin?: boolean },
        cmd: Command,
      ) => {
        const run = Invocation.of(cmd, environment);
        const server = serverFor(run, flags);
        const email = await answerOrAsk(run, flags.email, 'E-mail: ', '--email');
        const name = await answerOrAsk(run, flags.name, 'Name: ', '--name');
        const password = await passwordOf(run, flags.passwordStdin, true);
        const answer = dataOf(
          await createCloudplaneClient({ baseUrl: server }).POST('/v1/auth/register', {
            body: { email, name, password },
          }),
        );
        run.say(answer, `${answer.message}\nNext: cloudplane login --server ${server}`);
      },
    );
  return withExamples(command, [
    'cloudplane signup --server https://cloudplane.example --email ada@example.com --name "Ada"',
  ]);
}

interface LoginFlags extends ServerFlag {
  email?: string;
  passwordStdin?: boolean;
  apiKey?: string;
  apiKeyStdin?: boolean;
  otp?: string;
}

async function signIn(run: Invocation, server: string, flags: LoginFlags): Promise<[Credentials, string]> {
  const api = createCloudplaneClient({ baseUrl: server });
  if (flags.apiKey !== undefined || flags.apiKeyStdin) {
    const key = flags.apiKey ?? (await run.terminal.readStdin()).trim();
    const me = dataOf(await createCloudplaneClient({ baseUrl: server, apiKey: key }).GET('/v1/auth/me'));
    return [{ type: 'api_key', api_key: key }, me.email];
  }
  const email = await answerOrAsk(run, flags.email, 'E-mail: ', '--email');
  const password = await passwordOf(run, flags.passwordStdin, false);
  try {
    const session = dataOf(await api.POST('/v1/auth/login', { body: { email, password } }));
    const { token, refresh_token, expires_at } = session;
    return [{ type: 'session', token, refresh_token, expires_at }, session.user.email];
  } catch (error) {
    if (!(error instanceof CloudplaneError) || error.code !== '2fa_required') throw error;
    run.terminal.err('This account has two-factor on.\n');
    const code = await answerOrAsk(run, flags.otp, 'Two-factor code: ', '--otp CODE');
    const session_token = String(error.details.session_token);
    const verified = dataOf(await api.POST('/v1/auth/2fa/verify', { body: { code, session_token } }));
    const { token, refresh_token, expires_at } = verified;
    return [{ type: 'session', token, refresh_token, expires_at }, email];
  }
}

/** The context a login writes: `--context`, else the one in use when it is on this server, else the host. */
function contextNameFor(run: Invocation, server: string): string {
  if (run.contextFlag !== undefined) return run.contextFlag;
  const config = run.environment.configFile.read();
  const current = config.current_context;
  if (current !== undefined && config.contexts[current]?.server === server) return current;
  return new URL(server).host;
}

function loginCommand(environment: ClientEnvironment): Command {
  const command = new Command('login')
    .description('sign in and keep the credentials in a context')
    .option('--server <url>', 'the platform to sign in to')
    .option('--email <email>', 'your e-mail address (asked when missing)')
    .option('--password-stdin', 'read the password from stdin instead of asking')
    .option('--otp <code>', 'the two-factor code, when the account has two-factor on (asked when missing)')
    .option('--api-key <key>', 'sign in with an API key instead of a password')
    .option('--api-key-stdin', 'read the API key from stdin')
    .action(async (flags: LoginFlags, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const server = serverFor(run, flags);
      const [credentials, user] = await signIn(run, server, flags);
      const name = contextNameFor(run, server);
      environment.configFile.update((config) => {
        config.contexts[name] = { server, user, credentials };
        config.current_context = name;
      });
      run.say({ context: name, server, user }, `Signed in to ${server} as ${user} (context ${name})`);
    });
  return withExamples(command, [
    'cloudplane login --server https://cloudplane.example',
    'cloudplane login --server https://staging.example --context staging --email ada@example.com',
    'echo "$KEY" | cloudplane login --server https://cloudplane.example --api-key-stdin',
  ]);
}

function logoutCommand(environment: ClientEnvironment): Command {
  const command = new Command('logout')
    .description("end the session and forget the context's credentials")
    .action(async (_flags: object, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const { target } = run.sessionOf();
      if (target.contextName === undefined || !target.credentials) throw new UsageError('not signed in');
      if (target.credentials.type === 'session') {
        await run
          .api()
          .POST('/v1/auth/logout')
          .catch((error: unknown) => {
            // A session that already ended is as good as ended now.
            if (!(error instanceof CloudplaneError && error.status === 401)) throw error;
          });
      }
      const contextName = target.contextName;
      environment.configFile.update((config) => {
        delete config.contexts[contextName]?.credentials;
      });
      run.say({ context: contextName }, `Signed out (context ${contextName})`);
    });
  return withExamples(command, ['cloudplane logout', 'cloudplane logout --context staging']);
}

function whoamiCommand(environment: ClientEnvironment): Command {
  const command = new Command('whoami')
    .description('who the credentials in use belong to')
    .option('--show-token', "print the session's access token (for scripts that call the API)")
    .action(async (flags: { showToken?: boolean }, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const session = run.sessionOf();
      const me = dataOf(await run.api().GET('/v1/auth/me'));
      if (flags.showToken) {
        if (session.target.credentials?.type !== 'session') throw new UsageError('an API key has no token');
        run.terminal.out(`${await session.currentToken()}\n`);
        return;
      }
      const organization = me.organizations.find((entry) => entry.id === me.current_organization_id);
      run.print(me, () =>
        renderFields([
          ['user', `${me.name} <${me.email}>`],
          ['organization', organization ? `${organization.name} (${organization.role})` : ''],
          ['server', session.target.server],
          ['context', session.target.contextName ?? '(environment)'],
          ['credentials', me.api_key ? `API key ${me.api_key.id}` : 'session'],
        ]),
      );
    });
  return withExamples(command, ['cloudplane whoami', 'cloudplane whoami -o json']);
}

export function authCommands(environment: ClientEnvironment): Command[] {
  return [
    signupCommand(environment),
    loginCommand(environment),
    logoutCommand(environment),
    whoamiCommand(environment),
  ];
}
