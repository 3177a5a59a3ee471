/**
 * Stacks: a template editor that shows the API's problems at their paths, the plan as a diff,
 * apply with its four phases progressing, the outputs (sensitive ones masked by the API), and
 * what each bootstrap job printed.
 */
import { useEffect, useState } from 'preact/hooks';
import { CloudplaneError, dataOf } from '../../../sdk/index.ts';
import { Link } from '../components/link.tsx';
import { DetailPage, Facts } from '../components/detail.tsx';
import { ActionForm, TextInput } from '../components/form.tsx';
import { ResourceTable } from '../components/table.tsx';
import {
  ErrorNotice,
  formatDate,
  Page,
  StatusBadge,
  useAction,
  useLoad,
  useRefreshWhile,
} from '../components/ui.tsx';
import { useEvents } from '../live.ts';
import {
  parseTemplate,
  planDiff,
  planSummary,
  templateProblems,
  type TemplateProblem,
} from '../plan-diff.ts';
import { navigate } from '../router.ts';
import { api } from '../session.ts';

const STACK_EVENTS = ['stack'];
/** How often a running execution is read again while its page is open. */
const EXECUTION_POLL_MS = 1000;

const EXAMPLE_TEMPLATE = JSON.stringify(
  {
    version: '1.0.0',
    resources: { cache: { type: 'cache', properties: { engine: 'redis', memory: '64Mi' } } },
    secrets: { api_token: { type: 'generated', generator_type: 'token', length: 32 } },
    outputs: {
      cache_endpoint: { value: '${resources.cache.endpoint}' },
      api_token: { value: '${secrets.api_token}' },
    },
  },
  null,
  2,
);

/** Saves a template: its own JSON problems first, then the API's, each at its path. */
function useTemplateSave(save: (template: Record<string, unknown>) => Promise<void>) {
  const [problems, setProblems] = useState<TemplateProblem[]>([]);
  const action = useAction(async (text: string) => {
    setProblems([]);
    const parsed = parseTemplate(text);
    if ('problem' in parsed) {
      setProblems([parsed.problem]);
      return;
    }
    try {
      await save(parsed.template);
    } catch (error) {
      if (error instanceof CloudplaneError) {
        const found = templateProblems(error.message, error.details);
        if (found.length > 0) setProblems(found);
      }
      throw error;
    }
  });
  return { ...action, problems };
}

function TemplateEditor({
  id,
  value,
  onInput,
  problems,
}: {
  id: string;
  value: string;
  onInput: (text: string) => void;
  problems: TemplateProblem[];
}) {
  const problemsId = `${id}-problems`;
  return (
    <div class="field template-editor">
      <label for={id}>Template (JSON)</label>
      <textarea
        id={id}
        rows={18}
        spellcheck={false}
        aria-invalid={problems.length > 0}
        aria-describedby={problems.length > 0 ? problemsId : undefined}
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      {problems.length > 0 && (
        <ul id={problemsId} class="problems" data-testid="template-problems">
          {problems.map((problem) => (
            <li key={`${problem.path}-${problem.message}`}>
              <code>{problem.path}</code>: {problem.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function CreateStack() {
  const [name, setName] = useState('');
  const [tenant, setTenant] = useState('default');
  const [text, setText] = useState(EXAMPLE_TEMPLATE);
  const create = useTemplateSave(async (template) => {
    // The document describes the template as a free-form object, which the SDK types as empty.
    const body = { name, tenant, template: template as Record<string, never> };
    const stack = dataOf(await api.POST('/v1/stacks', { body }));
    navigate(`/stacks/${stack.id}`);
  });
  return (
    <ActionForm
      id="create-stack"
      heading="Create a stack"
      class="card"
      action={{ ...create, run: () => create.run(text) }}
      submit="Create stack"
    >
      <div class="form-grid">
        <TextInput id="stack-name" label="Name" value={name} onValue={setName} />
        <TextInput id="stack-tenant" label="Tenant" value={tenant} onValue={setTenant} />
      </div>
      <TemplateEditor id="stack-template" value={text} onInput={setText} problems={create.problems} />
    </ActionForm>
  );
}

export function Stacks() {
  const stacks = useLoad(async () => dataOf(await api.GET('/v1/stacks')), [], STACK_EVENTS);
  return (
    <Page title="Stacks">
      <ErrorNotice error={stacks.error} />
      <ResourceTable
        label="Stacks: templates deployed by plan and apply"
        caption
        columns={['Name', 'Tenant', 'Status', 'Version']}
        rows={stacks.data}
        empty="No stack yet."
        row={(stack) => (
          <tr key={stack.id}>
            <td>
              <Link href={`/stacks/${stack.id}`}>{stack.name}</Link>
            </td>
            <td>{stack.tenant}</td>
            <td>
              <StatusBadge status={stack.status} />
            </td>
            <td>{stack.version}</td>
          </tr>
        )}
      />
      <CreateStack />
    </Page>
  );
}

const PHASES = ['infrastructure', 'secrets', 'bootstrap', 'services'] as const;

/** An execution's phases and steps, read again every second while it runs. */
function ExecutionProgress({ stackId, executionId }: { stackId: string; executionId: string }) {
  const execution = useLoad(
    async () =>
      dataOf(
        await api.GET('/v1/stacks/{id}/executions/{execution_id}', {
          params: { path: { id: stackId, execution_id: executionId } },
        }),
      ),
    [stackId, executionId],
    STACK_EVENTS,
  );
  useRefreshWhile(execution.data?.status === 'running', execution.reload, EXECUTION_POLL_MS);
  const phases = execution.data?.phases ?? [];
  return (
    <section class="card" aria-labelledby="execution" aria-live="polite">
      <h3 id="execution">
        {execution.data?.operation === 'destroy' ? 'Destroy' : 'Apply'} <code>{executionId}</code>{' '}
        <StatusBadge status={execution.data?.status} />
      </h3>
      <ErrorNotice error={execution.error} />
      <ol class="phases" data-testid="phases">
        {PHASES.map((name) => {
          const phase = phases.find((candidate) => candidate.name === name);
          return (
            <li key={name} data-phase={name}>
              <span class="phase-name">{name}</span> <StatusBadge status={phase?.status ?? 'pending'} />
            </li>
          );
        })}
      </ol>
      {execution.data?.error && <p class="notice notice-error">{execution.data.error}</p>}
      <ul class="plain-list">
        {execution.data?.steps?.map((step) => (
          <li key={`${step.phase}-${step.resource}`}>
            <code>{step.resource}</code> {step.action} <StatusBadge status={step.status} />
            {step.message && <span class="muted"> — {step.message}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** How often a running job's logs are read again while they are shown. */
const LOG_FOLLOW_MS = 1000;

/** What a bootstrap job's last run printed, read again while the job runs. */
function JobLogs({ stackId, job, running }: { stackId: string; job: string; running: boolean }) {
  const logs = useLoad(
    async () =>
      dataOf(
        await api.GET('/v1/stacks/{id}/jobs/{name}/logs', { params: { path: { id: stackId, name: job } } }),
      ).logs ?? '',
    // Read once more when the run ends, for what it printed last.
    [stackId, job, running],
  );
  useRefreshWhile(running, logs.reload, LOG_FOLLOW_MS);
  return (
    <div class="job-logs">
      <ErrorNotice error={logs.error} />
      {running && (
        <p class="muted" role="status">
          Following: the job is running.
        </p>
      )}
      <pre tabIndex={0} aria-label={`Logs of ${job}`} data-testid={`logs-${job}`}>
        {logs.data === undefined ? 'Loading…' : logs.data || '(nothing printed)'}
      </pre>
    </div>
  );
}

/** The last run of each bootstrap job: its status and exit code, its logs on demand. */
function Jobs({ stackId, refresh }: { stackId: string; refresh: unknown }) {
  const jobs = useLoad(
    async () =>
      dataOf(await api.GET('/v1/stacks/{id}/jobs', { params: { path: { id: stackId } } })).jobs ?? [],
    [stackId, refresh],
  );
  useRefreshWhile(
    (jobs.data ?? []).some((job) => job.status === 'running'),
    jobs.reload,
    EXECUTION_POLL_MS,
  );
  const [shown, setShown] = useState<string>();
  const shownJob = jobs.data?.find((job) => job.name === shown);
  return (
    <section aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Bootstrap jobs</h2>
      <ErrorNotice error={jobs.error} />
      <ResourceTable
        label="Bootstrap jobs, their last run"
        columns={['Job', 'Status', 'Exit code', 'Started', 'Completed']}
        actions
        rows={jobs.data}
        empty="No bootstrap job has run."
        row={(job) => (
          <tr key={job.name}>
            <td>{job.name}</td>
            <td>
              <StatusBadge status={job.status} />
              {job.message && <p class="hint">{job.message}</p>}
            </td>
            <td>{job.exit_code ?? '—'}</td>
            <td>{formatDate(job.started_at)}</td>
            <td>{formatDate(job.completed_at)}</td>
            <td>
              <button
                type="button"
                aria-pressed={shown === job.name}
                aria-label={`Logs of the job ${job.name}`}
                onClick={() => setShown(shown === job.name ? undefined : job.name)}
              >
                Logs
              </button>
            </td>
          </tr>
        )}
      />
      {shownJob?.name && (
        <JobLogs stackId={stackId} job={shownJob.name} running={shownJob.status === 'running'} />
      )}
    </section>
  );
}

export function StackDetail({ id }: { id: string }) {
  const path = { params: { path: { id } } };
  const stack = useLoad(async () => dataOf(await api.GET('/v1/stacks/{id}', path)), [id], STACK_EVENTS);
  const version = stack.data?.version;
  const applied = stack.data?.applied_version;
  const plan = useLoad(
    async () => dataOf(await api.GET('/v1/stacks/{id}/plan', path)),
    [id, version, applied],
  );
  const outputs = useLoad(async () => dataOf(await api.GET('/v1/stacks/{id}/outputs', path)), [id, applied]);
  const [text, setText] = useState<string>();
  const [executionId, setExecutionId] = useState<string>();
  useEffect(() => {
    if (stack.data?.template && text === undefined) setText(JSON.stringify(stack.data.template, null, 2));
  }, [stack.data, text]);
  useEffect(() => {
    if (!executionId && stack.data?.last_execution_id) setExecutionId(stack.data.last_execution_id);
  }, [stack.data, executionId]);
  useEvents(STACK_EVENTS, () => outputs.reload());
  const save = useTemplateSave(async (template) => {
    await api.PUT('/v1/stacks/{id}', { ...path, body: { template: template as Record<string, never> } });
    stack.reload();
  });
  const apply = useAction(async () => {
    const execution = dataOf(
      await api.POST('/v1/stacks/{id}/apply', { ...path, body: { plan_digest: plan.data?.plan_digest } }),
    );
    setExecutionId(execution.execution_id);
  });
  const lines = planDiff(plan.data?.changes ?? []);
  const outputEntries = Object.entries(outputs.data?.outputs ?? {});
  return (
    <DetailPage
      title={stack.data?.name ? `Stack ${stack.data.name}` : 'Stack'}
      backHref="/stacks"
      backLabel="← All stacks"
      error={stack.error}
    >
      {stack.data && (
        <Facts
          facts={[
            ['Status', <StatusBadge status={stack.data.status} />],
            [
              'Version',
              <>
                {stack.data.version} (applied: {stack.data.applied_version ?? 'none'})
              </>,
            ],
            ['Phase', stack.data.phase ?? '—'],
            ['Updated', formatDate(stack.data.updated_at)],
          ]}
        />
      )}
      {stack.data?.message && <p class="notice">{stack.data.message}</p>}

      <section aria-labelledby="plan-heading">
        <h2 id="plan-heading">Plan</h2>
        <ErrorNotice error={plan.error} />
        {plan.data && <p>{planSummary(plan.data.summary ?? {})}</p>}
        <ul class="plan-diff" data-testid="plan-diff" aria-label="Planned changes">
          {lines.map((line) => (
            <li key={line.resource} class={`diff-${line.type}`}>
              <span class="diff-symbol" aria-hidden="true">
                {line.symbol}
              </span>{' '}
              <span class="visually-hidden">{line.type}</span>
              <code>{line.resource}</code>
              {line.fields.length > 0 && (
                <ul>
                  {line.fields.map((field) => (
                    <li key={field.path}>
                      <code>{field.path}</code>: {field.old} → {field.new}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
          {plan.data && lines.length === 0 && (
            <li class="muted">No changes: what is applied matches the template.</li>
          )}
        </ul>
        <ErrorNotice error={apply.error} />
        <div class="form-actions">
          <button
            type="button"
            class="primary"
            disabled={apply.busy || !plan.data || lines.length === 0}
            onClick={() => void apply.run()}
          >
            Apply
          </button>
        </div>
      </section>

      {executionId && <ExecutionProgress stackId={id} executionId={executionId} />}

      <Jobs stackId={id} refresh={`${stack.data?.status}-${stack.data?.last_execution_id}`} />

      <section aria-labelledby="outputs-heading">
        <h2 id="outputs-heading">Outputs</h2>
        <ErrorNotice error={outputs.error} />
        <ResourceTable
          label="Outputs"
          columns={['Name', 'Value', 'Vault path']}
          rows={outputEntries}
          empty="No output yet: apply first."
          row={([name, output]) => (
            <tr key={name}>
              <td>{name}</td>
              <td>
                <code>{output.value}</code>
                {output.sensitive && <span class="muted"> (sensitive)</span>}
              </td>
              <td>{output.vault_path ? <code>{output.vault_path}</code> : '—'}</td>
            </tr>
          )}
        />
      </section>

      <form
        class="card"
        aria-labelledby="edit-template"
        onSubmit={(event) => {
          event.preventDefault();
          if (text !== undefined) void save.run(text);
        }}
      >
        <h2 id="edit-template">Template</h2>
        <p class="muted">Saving raises the version; nothing changes until the next apply.</p>
        <TemplateEditor
          id="edit-template-text"
          value={text ?? ''}
          onInput={setText}
          problems={save.problems}
        />
        <ErrorNotice error={save.error} />
        <div class="form-actions">
          <button type="submit" disabled={save.busy || text === undefined}>
            Save template
          </button>
        </div>
      </form>
    </DetailPage>
  );
}
