/**
 * What a stack applied: `/outputs`, `/secrets`, `/jobs` and a job's `/logs`. Secret values are
 * never answered: generated secrets and sensitive outputs give their vault path.
 */
import { listEntries, listJobRuns } from '../../../controllers/stacks/index.js';
import { notFound } from '../../errors.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import { BASE, findStack, MASKED, READ, STACK_PARAMS, type StackParams } from './stack-views.js';

const JOB = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    status: { type: 'string', enum: ['running', 'succeeded', 'failed', 'skipped'] },
    exit_code: { type: ['integer', 'null'] },
    message: { type: ['string', 'null'], description: 'Why skipped or failed' },
    execution_id: { type: 'string' },
    started_at: { type: ['string', 'null'], format: 'date-time' },
    completed_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

const keyOf = (stack: { metadata: { namespace?: string; name: string } }) => ({
  namespace: stack.metadata.namespace!,
  stack: stack.metadata.name,
});

async function listStackOutputs({
  params,
  principal,
  store,
  database,
}: AuthenticatedContext<{ params: StackParams }>) {
  const stack = await findStack(store, principal, params.id);
  const entries = await listEntries(database, keyOf(stack));
  const outputs = Object.fromEntries(
    entries
      .filter((entry) => entry.section === 'outputs')
      .map((entry) => [
        entry.name,
        entry.vaultPath
          ? { value: MASKED, sensitive: true, vault_path: entry.vaultPath }
          : { value: entry.attributes.value ?? '', sensitive: false },
      ]),
  );
  return { data: { outputs } };
}

async function listStackSecrets({
  params,
  principal,
  store,
  database,
}: AuthenticatedContext<{ params: StackParams }>) {
  const stack = await findStack(store, principal, params.id);
  const entries = await listEntries(database, keyOf(stack));
  const secrets = entries
    .filter((entry) => entry.section === 'secrets')
    .map((entry) => {
      const config = entry.config as { type?: string; generator_type?: string };
      return {
        name: entry.name,
        type: config.type ?? 'generated',
        generator_type: config.generator_type ?? 'password',
        vault_cluster_id: 'managed',
        vault_path: entry.vaultPath ?? '',
        created_at: entry.createdAt,
      };
    });
  return { data: { secrets } };
}

async function listStackJobs({
  params,
  principal,
  store,
  database,
}: AuthenticatedContext<{ params: StackParams }>) {
  const stack = await findStack(store, principal, params.id);
  const runs = await listJobRuns(database, keyOf(stack));
  return {
    data: {
      jobs: runs.map((run) => ({
        name: run.name,
        status: run.status,
        exit_code: run.exitCode,
        message: run.message ?? null,
        execution_id: run.execution.replace('-', '_'),
        started_at: run.startedAt ?? null,
        completed_at: run.completedAt ?? null,
      })),
    },
  };
}

async function getStackJobLogs({
  params,
  principal,
  store,
  database,
}: AuthenticatedContext<{ params: StackParams & { name: string } }>) {
  const stack = await findStack(store, principal, params.id);
  const run = (await listJobRuns(database, keyOf(stack))).find((candidate) => candidate.name === params.name);
  if (!run) throw notFound(`job ${params.name} of stack ${params.id} has not run`);
  return { data: { logs: run.logs } };
}

export const stackArtifactRoutes: RouteModule = {
  area: 'stacks',
  routes: [
    defineRoute<{ params: StackParams }>({
      ...BASE,
      method: 'get',
      path: '/v1/stacks/:id/outputs',
      scopes: READ,
      summary: "The stack's outputs",
      description:
        'A sensitive output (derived from a secret or a connection string) is masked and gives its vault path.',
      request: { params: STACK_PARAMS },
      responses: {
        200: {
          description: 'Outputs by name',
          schema: {
            type: 'object',
            properties: {
              outputs: {
                type: 'object',
                additionalProperties: {
                  type: 'object',
                  properties: {
                    value: { type: 'string' },
                    sensitive: { type: 'boolean' },
                    vault_path: { type: 'string' },
                  },
                },
              },
            },
          },
        },
        404: { description: 'No such stack' },
      },
      handler: listStackOutputs,
    }),
    defineRoute<{ params: StackParams }>({
      ...BASE,
      method: 'get',
      path: '/v1/stacks/:id/secrets',
      scopes: READ,
      summary: "The stack's generated secrets: where they are, never their values",
      request: { params: STACK_PARAMS },
      responses: {
        200: {
          description: 'Generated secrets',
          schema: {
            type: 'object',
            properties: {
              secrets: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string' },
                    type: { type: 'string' },
                    generator_type: { type: 'string', enum: ['password', 'token'] },
                    vault_cluster_id: { type: 'string' },
                    vault_path: { type: 'string' },
                    created_at: { type: 'string', format: 'date-time' },
                  },
                },
              },
            },
          },
        },
        404: { description: 'No such stack' },
      },
      handler: listStackSecrets,
    }),
    defineRoute<{ params: StackParams }>({
      ...BASE,
      method: 'get',
      path: '/v1/stacks/:id/jobs',
      scopes: READ,
      summary: "The last run of each of the stack's bootstrap jobs",
      request: { params: STACK_PARAMS },
      responses: {
        200: {
          description: 'Jobs',
          schema: { type: 'object', properties: { jobs: { type: 'array', items: JOB } } },
        },
        404: { description: 'No such stack' },
      },
      handler: listStackJobs,
    }),
    defineRoute<{ params: StackParams & { name: string } }>({
      ...BASE,
      method: 'get',
      path: '/v1/stacks/:id/jobs/:name/logs',
      scopes: READ,
      summary: "What a bootstrap job's last run printed",
      request: {
        params: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            ...STACK_PARAMS.properties,
            name: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z][a-z0-9_-]*$' },
          },
        },
      },
      responses: {
        200: {
          description: 'Newline-separated lines, capped by the platform',
          schema: { type: 'object', properties: { logs: { type: 'string' } } },
        },
        404: { description: 'No such stack, or the job has not run' },
      },
      handler: getStackJobLogs,
    }),
  ],
};
