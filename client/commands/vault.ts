/**
 * `vault`: the organization's vault clusters, their key-value secrets, transit encryption,
 * policies, tokens and unsealing.
 */
import { Command } from 'commander';
import { UsageError } from '../failures.js';
import {
  answerOf,
  Invocation,
  timeoutOf,
  withExamples,
  withWait,
  type ClientEnvironment,
  type WaitFlags,
} from '../invocation.js';
import { cellText, renderFields, renderTable } from '../output.js';
import { untilGone, waitFor } from '../waiting.js';
import type { paths } from '../../sdk/index.js';

type VaultCluster = paths['/api/v1/vault/{id}']['get']['responses'][200]['content']['application/json'];

const clusterPath = (id: string) => ({ params: { path: { id } } });
const secretPath = (id: string, path: string) => ({ params: { path: { id, path } } });

/** `key=value` pairs (a value may hold `=`); a value of `@file` would be ambiguous, so none is read. */
export function parsePairs(pairs: readonly string[]): Record<string, string> {
  const data: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`${JSON.stringify(pair)} is not key=value`);
    data[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return data;
}

function clusterCommands(vault: Command, environment: ClientEnvironment): void {
  withExamples(
    withWait(
      vault
        .command('create')
        .description('create a vault cluster; its unseal keys are shown only now')
        .argument('<name>')
        .option('--auto-unseal', 'the platform unseals it (no unseal keys)')
        .option('--shares <n>', 'unseal key shares', (value) => Number(value))
        .option('--threshold <n>', 'shares needed to unseal', (value) => Number(value)),
      'it is running',
    ).action(
      async (
        name: string,
        flags: WaitFlags & { autoUnseal?: boolean; shares?: number; threshold?: number },
        cmd,
      ) => {
        const run = Invocation.of(cmd as Command, environment);
        const api = run.api();
        const body = {
          name,
          ...(flags.autoUnseal && { auto_unseal: true }),
          ...(flags.shares !== undefined && { shares: flags.shares }),
          ...(flags.threshold !== undefined && { threshold: flags.threshold }),
        };
        const created = answerOf(await api.POST('/api/v1/vault', { body }));
        const keys = created.unseal_keys ?? [];
        if (keys.length > 0) {
          run.terminal.err(
            `Unseal keys (shown only now; keep them apart):\n${keys.map((key) => `  ${key}\n`).join('')}`,
          );
        }
        const cluster = flags.wait
          ? await waitFor<VaultCluster>({
              terminal: run.terminal,
              what: `vault ${name}`,
              timeoutMs: timeoutOf(flags),
              async poll() {
                const current = answerOf(await api.GET('/api/v1/vault/{id}', clusterPath(created.id!)));
                if (current.status === 'running' || current.status === 'sealed') {
                  return { state: 'done', value: current, status: current.status };
                }
                if (current.status === 'error') return { state: 'failed', message: 'error' };
                return { state: 'pending', status: current.status ?? 'provisioning' };
              },
            })
          : created;
        // The cluster as the wait left it; its unseal keys exist only in the create's answer.
        const shown = keys.length > 0 ? { ...cluster, unseal_keys: keys } : cluster;
        run.say(shown, `Created vault cluster ${cluster.id} (${cluster.status})`);
      },
    ),
    [
      'cloudplane vault create app-secrets --auto-unseal --wait',
      'cloudplane vault create keys --shares 5 --threshold 3',
    ],
  );

  withExamples(
    vault
      .command('list')
      .description("list the organization's vault clusters")
      .action(async (_flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = answerOf(await run.api().GET('/api/v1/vault'));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'status', value: (row) => row.status },
            { header: 'sealed', value: (row) => row.sealed },
            { header: 'secrets', value: (row) => row.total_secrets },
          ]),
        );
      }),
    ['cloudplane vault list'],
  );

  withExamples(
    vault
      .command('get')
      .description('show a vault cluster')
      .argument('<cluster>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const cluster = answerOf(await run.api().GET('/api/v1/vault/{id}', clusterPath(id)));
        run.print(cluster, () => renderFields(Object.entries(cluster)));
      }),
    ['cloudplane vault get 6f1c…'],
  );

  withExamples(
    withWait(
      vault.command('delete').description('delete a vault cluster and all it holds').argument('<cluster>'),
      'it is gone',
    ).action(async (id: string, flags: WaitFlags, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const api = run.api();
      await api.DELETE('/api/v1/vault/{id}', clusterPath(id));
      if (flags.wait) {
        await waitFor({
          terminal: run.terminal,
          what: `vault ${id}`,
          timeoutMs: timeoutOf(flags),
          poll: untilGone(async () => answerOf(await api.GET('/api/v1/vault/{id}', clusterPath(id))).status),
        });
      }
      run.say({ deleted: id }, `Deleted vault cluster ${id}`);
    }),
    ['cloudplane vault delete 6f1c… --wait'],
  );

  withExamples(
    vault
      .command('unseal')
      .description('give one unseal key; the cluster unseals once enough are given')
      .argument('<cluster>')
      .option('--key-stdin', 'read the key from stdin instead of asking')
      .action(async (id: string, flags: { keyStdin?: boolean }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        let key: string;
        if (flags.keyStdin) key = (await run.terminal.readStdin()).trim();
        else if (run.terminal.stdinIsTty) key = await run.terminal.prompt('Unseal key: ', { hidden: true });
        else throw new UsageError('no terminal to ask the key on: pass --key-stdin');
        const state = answerOf(
          await run.api().POST('/api/v1/vault/{id}/unseal', { ...clusterPath(id), body: { key } }),
        );
        run.say(state, state.sealed ? `Sealed: ${state.progress}/${state.t} keys given` : 'Unsealed');
      }),
    ['cloudplane vault unseal 6f1c…', 'cloudplane vault unseal 6f1c… --key-stdin < key-1'],
  );
}

function kvCommands(environment: ClientEnvironment): Command {
  const kv = new Command('kv').description("a cluster's key-value secrets (versioned)");
  withExamples(
    kv
      .command('put')
      .description('write a new version of a secret')
      .argument('<cluster>')
      .argument('<path>')
      .argument('<key=value...>')
      .action(async (id: string, path: string, pairs: string[], _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const answer = answerOf(
          await run.api().POST('/api/v1/vault/{id}/secret/{path}', {
            ...secretPath(id, path),
            // The document describes `data` as a free-form object, which the SDK types as empty.
            body: { data: parsePairs(pairs) as Record<string, never> },
          }),
        );
        const written = (answer.data ?? {}) as { version?: number };
        run.say(written, `Wrote ${path} version ${cellText(written.version)}`);
      }),
    ['cloudplane vault kv put 6f1c… app/config username=app password=s3cret'],
  );
  withExamples(
    kv
      .command('get')
      .description('read a secret (the latest version unless --version)')
      .argument('<cluster>')
      .argument('<path>')
      .option('--version <n>', 'an older version', (value) => Number(value))
      .option('--field <key>', 'print only this field, bare')
      .action(async (id: string, path: string, flags: { version?: number; field?: string }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const answer = answerOf(
          await run.api().GET('/api/v1/vault/{id}/secret/{path}', {
            params: {
              path: { id, path },
              query: flags.version === undefined ? {} : { version: flags.version },
            },
          }),
        );
        const secret = (answer.data ?? {}) as { data?: Record<string, unknown>; metadata?: unknown };
        const data = secret.data ?? {};
        if (flags.field !== undefined) {
          if (!(flags.field in data))
            throw new UsageError(`${path} has no field ${JSON.stringify(flags.field)}`);
          run.terminal.out(`${cellText(data[flags.field])}\n`);
          return;
        }
        run.print(secret, () => renderFields(Object.entries(data)));
      }),
    ['cloudplane vault kv get 6f1c… app/config', 'cloudplane vault kv get 6f1c… app/config --field password'],
  );
  withExamples(
    kv
      .command('list')
      .description('list the keys under a path prefix')
      .argument('<cluster>')
      .argument('[prefix]', 'a folder such as app/', '')
      .action(async (id: string, prefix: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const answer = answerOf(
          await run.api().GET('/api/v1/vault/{id}/secret', {
            params: { path: { id }, query: { path: prefix, list: true } },
          }),
        );
        const keys = ((answer.data ?? {}) as { keys?: string[] }).keys ?? [];
        run.print(keys, () => keys.map((key) => `${key}\n`).join(''));
      }),
    ['cloudplane vault kv list 6f1c… app/'],
  );
  withExamples(
    kv
      .command('delete')
      .description('delete the latest version of a secret')
      .argument('<cluster>')
      .argument('<path>')
      .action(async (id: string, path: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        await run.api().DELETE('/api/v1/vault/{id}/secret/{path}', secretPath(id, path));
        run.say({ deleted: path }, `Deleted the latest version of ${path}`);
      }),
    ['cloudplane vault kv delete 6f1c… app/config'],
  );
  return withExamples(kv, [
    'cloudplane vault kv put 6f1c… app/config password=s3cret',
    'cloudplane vault kv get 6f1c… app/config',
  ]);
}

function transitCommands(vault: Command, environment: ClientEnvironment): void {
  withExamples(
    vault
      .command('encrypt')
      .description('encrypt with a named key (made on first use)')
      .argument('<cluster>')
      .argument('<key>')
      .argument('<plaintext>')
      .option('--base64', 'the plaintext is already base64')
      .action(
        async (id: string, key: string, plaintext: string, flags: { base64?: boolean }, cmd: Command) => {
          const run = Invocation.of(cmd, environment);
          const encoded = flags.base64 ? plaintext : Buffer.from(plaintext, 'utf8').toString('base64');
          const answer = answerOf(
            await run.api().POST('/api/v1/vault/{id}/encrypt/{key}', {
              params: { path: { id, key } },
              body: { plaintext: encoded },
            }),
          );
          run.say(answer, answer.cipher_text ?? '');
        },
      ),
    ['cloudplane vault encrypt 6f1c… orders "card 4242"'],
  );
  withExamples(
    vault
      .command('decrypt')
      .description('decrypt a ciphertext of any version of a named key')
      .argument('<cluster>')
      .argument('<key>')
      .argument('<ciphertext>')
      .option('--base64', 'print the plaintext as base64, not decoded')
      .action(
        async (id: string, key: string, ciphertext: string, flags: { base64?: boolean }, cmd: Command) => {
          const run = Invocation.of(cmd, environment);
          const answer = answerOf(
            await run.api().POST('/api/v1/vault/{id}/decrypt/{key}', {
              params: { path: { id, key } },
              body: { cipher_text: ciphertext },
            }),
          );
          const plaintext = answer.plaintext ?? '';
          run.say(answer, flags.base64 ? plaintext : Buffer.from(plaintext, 'base64').toString('utf8'));
        },
      ),
    ['cloudplane vault decrypt 6f1c… orders vault:v1:…'],
  );
}

function policyCommands(environment: ClientEnvironment): Command {
  const policies = new Command('policies').description("a cluster's policies");
  withExamples(
    policies
      .command('list')
      .description('list policies, the built-in default and root included')
      .argument('<cluster>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const answer = answerOf(await run.api().GET('/api/v1/vault/{id}/policies', clusterPath(id))) as {
          policies?: { name: string; description?: string }[];
        };
        const rows = answer.policies ?? [];
        run.print(answer, () =>
          renderTable(rows, [
            { header: 'name', value: (row) => row.name },
            { header: 'description', value: (row) => row.description },
          ]),
        );
      }),
    ['cloudplane vault policies list 6f1c…'],
  );
  withExamples(
    policies
      .command('get')
      .description("print a policy's rules")
      .argument('<cluster>')
      .argument('<name>')
      .action(async (id: string, name: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const policy = answerOf<{ rules?: string }>(
          await run.api().GET('/api/v1/vault/{id}/policies/{name}', { params: { path: { id, name } } }),
        );
        run.print(policy, () => `${policy.rules ?? ''}\n`);
      }),
    ['cloudplane vault policies get 6f1c… readers'],
  );
  withExamples(
    policies
      .command('put')
      .description('create or update a policy from an HCL file (- for stdin)')
      .argument('<cluster>')
      .argument('<name>')
      .requiredOption('-f, --file <path>', 'the rules')
      .action(async (id: string, name: string, flags: { file: string }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const { readFile } = await import('node:fs/promises');
        const rules =
          flags.file === '-' ? await run.terminal.readStdin() : await readFile(flags.file, 'utf8');
        await run.api().POST('/api/v1/vault/{id}/policies', { ...clusterPath(id), body: { name, rules } });
        run.say({ name }, `Wrote policy ${name}`);
      }),
    ['cloudplane vault policies put 6f1c… readers -f readers.hcl'],
  );
  withExamples(
    policies
      .command('delete')
      .description('delete a policy')
      .argument('<cluster>')
      .argument('<name>')
      .action(async (id: string, name: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        await run.api().DELETE('/api/v1/vault/{id}/policies/{name}', { params: { path: { id, name } } });
        run.say({ deleted: name }, `Deleted policy ${name}`);
      }),
    ['cloudplane vault policies delete 6f1c… readers'],
  );
  return withExamples(policies, ['cloudplane vault policies list 6f1c…']);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function tokenCommands(environment: ClientEnvironment): Command {
  const tokens = new Command('tokens').description("a cluster's tokens");
  withExamples(
    tokens
      .command('create')
      .description('create a token; it is shown only now')
      .argument('<cluster>')
      .option('--policy <name>', 'a policy it carries (repeatable)', collect)
      .option('--ttl <duration>', 'how long it lives, in seconds', (value) => Number(value))
      .option('--display-name <name>')
      .action(
        async (
          id: string,
          flags: { policy?: string[]; ttl?: number; displayName?: string },
          cmd: Command,
        ) => {
          const run = Invocation.of(cmd, environment);
          const body = {
            ...(flags.policy && { policies: flags.policy }),
            ...(flags.ttl !== undefined && { ttl: flags.ttl }),
            ...(flags.displayName !== undefined && { display_name: flags.displayName }),
          };
          const token = answerOf(
            await run.api().POST('/api/v1/vault/{id}/tokens', { ...clusterPath(id), body }),
          );
          run.say(
            token,
            `${token.client_token ?? ''}\n(accessor ${token.accessor ?? ''}; the token is shown only now)`,
          );
        },
      ),
    ['cloudplane vault tokens create 6f1c… --policy readers --ttl 3600'],
  );
  withExamples(
    tokens
      .command('list')
      .description('list live tokens (never their values)')
      .argument('<cluster>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = answerOf(await run.api().GET('/api/v1/vault/{id}/tokens', clusterPath(id)));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'accessor', value: (row) => row.accessor },
            { header: 'name', value: (row) => row.display_name },
            { header: 'policies', value: (row) => row.policies },
            { header: 'expires', value: (row) => row.expire_time },
          ]),
        );
      }),
    ['cloudplane vault tokens list 6f1c…'],
  );
  withExamples(
    tokens
      .command('revoke')
      .description('revoke a token by its accessor')
      .argument('<cluster>')
      .argument('<accessor>')
      .action(async (id: string, accessor: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        await run
          .api()
          .DELETE('/api/v1/vault/{id}/tokens/{accessor}', { params: { path: { id, accessor } } });
        run.say({ revoked: accessor }, `Revoked token ${accessor}`);
      }),
    ['cloudplane vault tokens revoke 6f1c… 9a8b…'],
  );
  return withExamples(tokens, ['cloudplane vault tokens list 6f1c…']);
}

export function vaultCommands(environment: ClientEnvironment): Command {
  const vault = new Command('vault').description('vault clusters: secrets, encryption, policies, tokens');
  clusterCommands(vault, environment);
  vault.addCommand(kvCommands(environment));
  transitCommands(vault, environment);
  vault.addCommand(policyCommands(environment));
  vault.addCommand(tokenCommands(environment));
  return withExamples(vault, [
    'cloudplane vault create app-secrets --auto-unseal --wait',
    'cloudplane vault kv put 6f1c… app/config password=s3cret',
  ]);
}
