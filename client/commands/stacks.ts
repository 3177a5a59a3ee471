/**
 * `stacks`: templates of databases, secrets, jobs and services applied as one. `plan` shows the
 * diff; `apply` and `destroy` follow the execution phase by phase.
 */
import fs from 'node:fs';
import { Command } from 'commander';
import { parse } from 'yaml';
import { dataOf, type CloudplaneClient, type paths } from '../../sdk/index.js';
import { ClientError, UsageError } from '../failures.js';
import {
  Invocation,
  timeoutOf,
  withExamples,
  type ClientEnvironment,
  type WaitFlags,
} from '../invocation.js';
import { renderFields, renderTable } from '../output.js';
import { renderPlan, type Plan } from '../plan-diff.js';
import { startPhaseList } from '../progress.js';
import { DEFAULT_TIMEOUT } from '../waiting.js';

type Execution =
  paths['/v1/stacks/{id}/executions/{execution_id}']['get']['responses'][200]['content']['application/json']['data'];

const stackPath = (id: string) => ({ params: { path: { id } } });
const POLL_MS = 500;

/** A template from a JSON or YAML file (`-` for stdin). */
async function readTemplate(run: Invocation, file: string): Promise<Record<string, never>> {
  const text = file === '-' ? await run.terminal.readStdin() : fs.readFileSync(file, 'utf8');
  let template: unknown;
  try {
    template = parse(text);
  } catch (error) {
    throw new UsageError(
      `${file} is neither JSON nor YAML: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof template !== 'object' || template === null || Array.isArray(template)) {
    throw new UsageError(`${file} does not hold a template (an object)`);
  }
  // The document describes a template as a free-form object, which the SDK types as empty.
  return template as Record<string, never>;
}

/** Polls an execution until it ends, ticking its phases; throws when it failed. */
async function followExecution(
  run: Invocation,
  api: CloudplaneClient,
  stackId: string,
  executionId: string,
  timeoutMs: number,
): Promise<Execution> {
  const phases = startPhaseList(run.terminal);
  const deadline = Date.now() + timeoutMs;
  let execution: Execution;
  try {
    for (;;) {
      execution = dataOf(
        await api.GET('/v1/stacks/{id}/executions/{execution_id}', {
          params: { path: { id: stackId, execution_id: executionId } },
        }),
      );
      phases.update(
        (execution.phases ?? []).map((phase) => ({ name: phase.name ?? '?', status: phase.status ?? '' })),
      );
      if (execution.status !== 'running') break;
      if (Date.now() >= deadline) {
        throw new ClientError(
          `execution ${executionId} is still running (phase ${execution.phase ?? '?'}) after the timeout`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    phases.stop();
  }
  if (execution.status === 'failed') {
    const failed = (execution.steps ?? []).filter((step) => step.status === 'failed');
    for (const step of failed) run.terminal.err(`  ${step.resource ?? '?'}: ${step.message ?? 'failed'}\n`);
    throw new ClientError(
      `${execution.operation ?? 'execution'} ${executionId} failed: ${execution.error ?? 'see the steps above'}`,
    );
  }
  return execution;
}

interface ExecutionFlags extends WaitFlags {
  planDigest?: string;
  force?: boolean;
  dryRun?: boolean;
}

function withExecutionFlags(command: Command): Command {
  return command
    .option('--plan-digest <digest>', 'apply only if the plan is still the one with this digest')
    .option('--force', 'run even when another execution seems stuck or the stack failed')
    .option('--dry-run', 'show what would happen; change nothing')
    .option('--timeout <duration>', 'how long to follow the execution (30s, 10m, 1h)', DEFAULT_TIMEOUT);
}

async function execute(run: Invocation, id: string, operation: 'apply' | 'destroy', flags: ExecutionFlags) {
  const api = run.api();
  const body = {
    ...(flags.planDigest !== undefined && { plan_digest: flags.planDigest }),
    ...(flags.force && { force: true }),
    ...(flags.dryRun && { dry_run: true }),
  };
  const route = operation === 'apply' ? '/v1/stacks/{id}/apply' : '/v1/stacks/{id}/destroy';
  const started = dataOf(await api.POST(route, { ...stackPath(id), body }));
  if (run.format === 'table') run.terminal.out(renderPlan((started.plan ?? {}) as Plan, run.terminal.colors));
  if (flags.dryRun) {
    run.print(started, () => 'Dry run: nothing was changed.\n');
    return;
  }
  const execution = await followExecution(run, api, id, started.execution_id!, timeoutOf(flags));
  const done = operation === 'apply' ? 'Applied' : 'Destroyed';
  run.say(execution, `${done} stack ${id} (execution ${execution.execution_id})`);
}

function jobsCommand(environment: ClientEnvironment): Command {
  const jobs = new Command('jobs')
    .description("the last run of each of the stack's bootstrap jobs")
    .argument('<stack>')
    .action(async (id: string, _flags: object, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const answer = dataOf(await run.api().GET('/v1/stacks/{id}/jobs', stackPath(id)));
      const rows = answer.jobs ?? [];
      run.print(answer, () =>
        renderTable(rows, [
          { header: 'name', value: (row) => row.name },
          { header: 'status', value: (row) => row.status },
          { header: 'exit', value: (row) => row.exit_code },
          { header: 'started', value: (row) => row.started_at },
          { header: 'message', value: (row) => row.message },
        ]),
      );
    });
  withExamples(
    jobs
      .command('logs')
      .description("what a bootstrap job's last run printed")
      .argument('<stack>')
      .argument('<name>', 'the job')
      .action(async (id: string, name: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const answer = dataOf(
          await run.api().GET('/v1/stacks/{id}/jobs/{name}/logs', { params: { path: { id, name } } }),
        );
        const logs = answer.logs ?? '';
        run.print(answer, () => (logs.endsWith('\n') || logs === '' ? logs : `${logs}\n`));
      }),
    ['cloudplane stacks jobs logs stk_0a1b… migrate'],
  );
  return withExamples(jobs, [
    'cloudplane stacks jobs stk_0a1b…',
    'cloudplane stacks jobs logs stk_0a1b… migrate',
  ]);
}

export function stackCommands(environment: ClientEnvironment): Command {
  const stacks = new Command('stacks').description(
    'stacks: a template of databases, secrets, jobs and services',
  );

  withExamples(
    stacks
      .command('create')
      .description('create a stack from a JSON or YAML template')
      .argument('<name>')
      .requiredOption('-f, --file <path>', 'the template (- for stdin)')
      .requiredOption('--tenant <tenant>', 'the tenant the stack is for')
      .action(async (name: string, flags: { file: string; tenant: string }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const template = await readTemplate(run, flags.file);
        const created = dataOf(
          await run.api().POST('/v1/stacks', { body: { name, tenant: flags.tenant, template } }),
        );
        run.say(
          created,
          `Created stack ${created.id} (version ${created.version}); next: cloudplane stacks plan ${created.id}`,
        );
      }),
    ['cloudplane stacks create shop -f shop.yaml --tenant acme'],
  );

  withExamples(
    stacks
      .command('update')
      .description("replace a stack's template (apply to make it so)")
      .argument('<stack>')
      .requiredOption('-f, --file <path>', 'the template (- for stdin)')
      .action(async (id: string, flags: { file: string }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const template = await readTemplate(run, flags.file);
        const updated = dataOf(
          await run.api().PUT('/v1/stacks/{id}', { ...stackPath(id), body: { template } }),
        );
        run.say(updated, `Stack ${id} is at version ${updated.version}; next: cloudplane stacks plan ${id}`);
      }),
    ['cloudplane stacks update stk_0a1b… -f shop.yaml'],
  );

  withExamples(
    stacks
      .command('list')
      .description("list the organization's stacks")
      .action(async (_flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = dataOf(await run.api().GET('/v1/stacks')) as Record<string, unknown>[];
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'tenant', value: (row) => row.tenant },
            { header: 'status', value: (row) => row.status },
            { header: 'version', value: (row) => row.version },
            { header: 'applied', value: (row) => row.applied_version },
          ]),
        );
      }),
    ['cloudplane stacks list'],
  );

  withExamples(
    stacks
      .command('get')
      .description('show a stack and its resources')
      .argument('<stack>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const stack = dataOf(await run.api().GET('/v1/stacks/{id}', stackPath(id)));
        run.print(stack, () => {
          const {
            template: _template,
            resources = [],
            conditions: _conditions,
            outputs: _outputs,
            ...fields
          } = stack;
          const table = renderTable(resources, [
            { header: 'resource', value: (row) => row.name },
            { header: 'type', value: (row) => row.type },
            { header: 'id', value: (row) => row.id },
            { header: 'status', value: (row) => row.status },
          ]);
          return `${renderFields(Object.entries(fields))}\n${table}`;
        });
      }),
    ['cloudplane stacks get stk_0a1b…'],
  );

  withExamples(
    stacks
      .command('plan')
      .description('what an apply would change, as a diff')
      .argument('<stack>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const plan = dataOf(await run.api().GET('/v1/stacks/{id}/plan', stackPath(id)));
        run.print(plan, () => renderPlan(plan as Plan, run.terminal.colors));
      }),
    ['cloudplane stacks plan stk_0a1b…', 'cloudplane stacks plan stk_0a1b… -o json | jq -r .plan_digest'],
  );

  withExamples(
    withExecutionFlags(
      stacks.command('apply').description('apply the template, following each phase').argument('<stack>'),
    ).action((id: string, flags: ExecutionFlags, cmd: Command) =>
      execute(Invocation.of(cmd, environment), id, 'apply', flags),
    ),
    [
      'cloudplane stacks apply stk_0a1b…',
      'cloudplane stacks apply stk_0a1b… --plan-digest sha256:9f…',
      'cloudplane stacks apply stk_0a1b… --dry-run',
    ],
  );

  withExamples(
    withExecutionFlags(
      stacks
        .command('destroy')
        .description('destroy what the stack applied, following each phase')
        .argument('<stack>'),
    ).action((id: string, flags: ExecutionFlags, cmd: Command) =>
      execute(Invocation.of(cmd, environment), id, 'destroy', flags),
    ),
    ['cloudplane stacks destroy stk_0a1b…'],
  );

  withExamples(
    stacks
      .command('outputs')
      .description("the stack's outputs (sensitive ones masked; read them from their vault path)")
      .argument('<stack>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const answer = dataOf(await run.api().GET('/v1/stacks/{id}/outputs', stackPath(id)));
        const rows = Object.entries(answer.outputs ?? {}).map(([name, output]) => ({ name, ...output }));
        run.print(answer, () =>
          renderTable(rows, [
            { header: 'name', value: (row) => row.name },
            { header: 'value', value: (row) => row.value },
            { header: 'vault path', value: (row) => row.vault_path },
          ]),
        );
      }),
    ['cloudplane stacks outputs stk_0a1b…'],
  );

  withExamples(
    stacks
      .command('secrets')
      .description("the stack's generated secrets: where they are, never their values")
      .argument('<stack>')
      .action(async (id: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const answer = dataOf(await run.api().GET('/v1/stacks/{id}/secrets', stackPath(id)));
        const rows = answer.secrets ?? [];
        run.print(answer, () =>
          renderTable(rows, [
            { header: 'name', value: (row) => row.name },
            { header: 'generator', value: (row) => row.generator_type },
            { header: 'vault', value: (row) => row.vault_cluster_id },
            { header: 'path', value: (row) => row.vault_path },
          ]),
        );
      }),
    ['cloudplane stacks secrets stk_0a1b…'],
  );

  stacks.addCommand(jobsCommand(environment));

  withExamples(
    stacks
      .command('delete')
      .description('delete a stack')
      .argument('<stack>')
      .option('--destroy-resources', 'destroy what it applied too (otherwise it must be destroyed first)')
      .action(async (id: string, flags: { destroyResources?: boolean }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const query = flags.destroyResources ? { destroy_resources: true } : {};
        await run.api().DELETE('/v1/stacks/{id}', { params: { path: { id }, query } });
        run.say({ deleted: id }, `Deleted stack ${id}`);
      }),
    ['cloudplane stacks delete stk_0a1b…', 'cloudplane stacks delete stk_0a1b… --destroy-resources'],
  );
  return withExamples(stacks, [
    'cloudplane stacks create shop -f shop.yaml --tenant acme',
    'cloudplane stacks plan stk_0a1b…',
    'cloudplane stacks apply stk_0a1b…',
  ]);
}
