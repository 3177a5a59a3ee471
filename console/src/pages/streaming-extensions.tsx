/**
 * A streaming cluster's schema registry and connectors, through their own wire APIs (Confluent's
 * registry, Kafka Connect's REST API) on this origin with the member's token.
 */
import { useState } from 'preact/hooks';
import { Link } from '../components/link.tsx';
import { ActionForm, ConfirmButton, SelectInput, TextInput } from '../components/form.tsx';
import { ResourceTable } from '../components/table.tsx';
import { ErrorNotice, Page, StatusBadge, useAction, useLoad, useRefreshWhile } from '../components/ui.tsx';
import { CloudplaneError } from '../../../sdk/index.ts';
import { wireCall } from '../session.ts';

const COMPATIBILITY_LEVELS = [
  'BACKWARD',
  'BACKWARD_TRANSITIVE',
  'FORWARD',
  'FORWARD_TRANSITIVE',
  'FULL',
  'FULL_TRANSITIVE',
  'NONE',
] as const;
type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];
const SCHEMA_TYPES = ['AVRO', 'JSON', 'PROTOBUF'] as const;
type SchemaType = (typeof SCHEMA_TYPES)[number];

const EXAMPLE_SCHEMA = JSON.stringify(
  { type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'id', type: 'long' }] },
  null,
  2,
);
const EXAMPLE_CONNECTOR = JSON.stringify(
  {
    'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
    topics: 'orders',
    'connection.url': 'jdbc:postgresql://db.example.com:5432/shop',
    'connection.user': 'writer',
    'connection.password': '',
    'auto.create': 'true',
  },
  null,
  2,
);

/**
 * A monospace text area whose error (the API's message, or JSON that does not parse) is shown at
 * the field and tied to it for assistive technology.
 */
function CodeArea({
  id,
  label,
  value,
  onValue,
  error,
  rows = 10,
}: {
  id: string;
  label: string;
  value: string;
  onValue: (text: string) => void;
  error: unknown;
  rows?: number;
}) {
  const errorId = `${id}-error`;
  return (
    <div class="field code-area">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={rows}
        spellcheck={false}
        aria-invalid={Boolean(error)}
        aria-describedby={error ? errorId : undefined}
        value={value}
        onInput={(event) => onValue(event.currentTarget.value)}
      />
      {Boolean(error) && (
        <div id={errorId} data-testid={errorId}>
          <ErrorNotice error={error} />
        </div>
      )}
    </div>
  );
}

/** A schema as people read it: JSON (Avro, JSON Schema) indented, Protobuf as written. */
function readableSchema(schema: string): string {
  try {
    return JSON.stringify(JSON.parse(schema), null, 2);
  } catch {
    return schema;
  }
}

interface SchemaVersion {
  subject: string;
  version: number;
  id: number;
  schemaType?: SchemaType;
  schema: string;
}

const registryPath = (clusterId: string, path: string) =>
  `/streaming/${encodeURIComponent(clusterId)}/schema-registry${path}`;

function CompatibilityControl({
  clusterId,
  subject,
  level,
  inherited,
  onChanged,
}: {
  clusterId: string;
  subject: string | undefined;
  /** The level set here; a subject without one has the registry's, `inherited`. */
  level: CompatibilityLevel | undefined;
  inherited?: CompatibilityLevel;
  onChanged: () => void;
}) {
  const [chosen, setChosen] = useState<CompatibilityLevel>(level ?? inherited ?? 'BACKWARD');
  const id = subject ? 'subject-compatibility' : 'global-compatibility';
  const change = useAction(async () => {
    const path = subject ? `/config/${encodeURIComponent(subject)}` : '/config';
    await wireCall('PUT', registryPath(clusterId, path), { compatibility: chosen });
    onChanged();
  });
  return (
    <ActionForm
      id={`${id}-form`}
      heading={subject ? `Compatibility of ${subject}` : 'Compatibility of the registry'}
      level={3}
      action={change}
      submit="Set compatibility"
    >
      <p>
        Now:{' '}
        <strong data-testid={`${id}-level`}>
          {level ?? `the registry\u2019s (${inherited ?? 'unknown'})`}
        </strong>
      </p>
      <SelectInput
        id={id}
        label="Compatibility level"
        choices={COMPATIBILITY_LEVELS}
        value={chosen}
        onValue={setChosen}
      />
    </ActionForm>
  );
}

function RegisterSchema({
  clusterId,
  subject: shownSubject,
  onRegistered,
}: {
  clusterId: string;
  subject: string | undefined;
  onRegistered: (subject: string) => void;
}) {
  const [subject, setSubject] = useState(shownSubject ?? '');
  const [schemaType, setSchemaType] = useState<SchemaType>('AVRO');
  const [schema, setSchema] = useState(EXAMPLE_SCHEMA);
  const register = useAction(async () => {
    await wireCall('POST', registryPath(clusterId, `/subjects/${encodeURIComponent(subject)}/versions`), {
      schema,
      schemaType,
    });
    onRegistered(subject);
  });
  return (
    <ActionForm
      id="register-schema"
      heading="Register a schema version"
      level={3}
      class="card"
      action={{ ...register, error: undefined }}
      submit="Register schema"
    >
      <div class="form-grid">
        <TextInput
          id="schema-subject"
          label="Subject"
          hint="Usually <topic>-value or <topic>-key."
          value={subject}
          onValue={setSubject}
        />
        <SelectInput
          id="schema-type"
          label="Schema type"
          choices={SCHEMA_TYPES}
          value={schemaType}
          onValue={setSchemaType}
        />
      </div>
      <CodeArea id="schema-text" label="Schema" value={schema} onValue={setSchema} error={register.error} />
    </ActionForm>
  );
}

/** A subject's own compatibility level, or undefined when it has the registry's (Confluent's 40408). */
async function ownLevel(clusterId: string, subject: string): Promise<CompatibilityLevel | undefined> {
  try {
    const answer = await wireCall<{ compatibilityLevel: CompatibilityLevel }>(
      'GET',
      registryPath(clusterId, `/config/${encodeURIComponent(subject)}`),
    );
    return answer.compatibilityLevel;
  } catch (error) {
    if (error instanceof CloudplaneError && error.status === 404) return undefined;
    throw error;
  }
}

function SubjectDetail({
  clusterId,
  subject,
  registryLevel,
  onDeleted,
}: {
  clusterId: string;
  subject: string;
  registryLevel: CompatibilityLevel | undefined;
  onDeleted: () => void;
}) {
  const subjectPath = `/subjects/${encodeURIComponent(subject)}`;
  const details = useLoad(async () => {
    const [versions, level] = await Promise.all([
      wireCall<number[]>('GET', registryPath(clusterId, `${subjectPath}/versions`)),
      ownLevel(clusterId, subject),
    ]);
    return { versions, level };
  }, [clusterId, subject]);
  const [shown, setShown] = useState<number>();
  const version = useLoad(
    async () =>
      shown === undefined
        ? undefined
        : wireCall<SchemaVersion>('GET', registryPath(clusterId, `${subjectPath}/versions/${shown}`)),
    [clusterId, subject, shown],
  );
  const remove = useAction(async () => {
    await wireCall('DELETE', registryPath(clusterId, subjectPath));
    onDeleted();
  });
  return (
    <section class="card" aria-labelledby="subject-heading" data-testid="subject-detail">
      <h3 id="subject-heading">Subject {subject}</h3>
      <ErrorNotice error={details.error ?? remove.error} />
      <ul class="plain-list inline-list" aria-label={`Versions of ${subject}`}>
        {details.data?.versions.map((number) => (
          <li key={number}>
            <button type="button" aria-pressed={shown === number} onClick={() => setShown(number)}>
              Version {number}
            </button>
          </li>
        ))}
      </ul>
      <ErrorNotice error={version.error} />
      {version.data && (
        <figure class="schema-view">
          <figcaption>
            Version {version.data.version} (id {version.data.id}, {version.data.schemaType ?? 'AVRO'})
          </figcaption>
          <pre data-testid="schema-text-shown">
            <code>{readableSchema(version.data.schema)}</code>
          </pre>
        </figure>
      )}
      {details.data && (
        <CompatibilityControl
          key={`${subject}-${details.data.level}-${registryLevel}`}
          clusterId={clusterId}
          subject={subject}
          level={details.data.level}
          inherited={registryLevel}
          onChanged={details.reload}
        />
      )}
      <div class="form-actions">
        <ConfirmButton
          question={`Delete the subject ${subject} with all its versions?`}
          onConfirm={() => void remove.run()}
          disabled={remove.busy}
        >
          Delete subject
        </ConfirmButton>
      </div>
    </section>
  );
}

/** The registry: subjects, a subject's versions and schemas, compatibility levels, registration. */
export function SchemaRegistryPage({ clusterId }: { clusterId: string }) {
  const registry = useLoad(async () => {
    const [subjects, config] = await Promise.all([
      wireCall<string[]>('GET', registryPath(clusterId, '/subjects')),
      wireCall<{ compatibilityLevel: CompatibilityLevel }>('GET', registryPath(clusterId, '/config')),
    ]);
    return { subjects, level: config.compatibilityLevel };
  }, [clusterId]);
  const [selected, setSelected] = useState<string>();
  // A registration changes the selected subject's versions: its view is made anew.
  const [registrations, setRegistrations] = useState(0);
  return (
    <Page title="Schema registry">
      <p>
        <Link href={`/streaming-clusters/${clusterId}`}>← The cluster</Link>
      </p>
      <ErrorNotice error={registry.error} />
      <ResourceTable
        label="Subjects"
        caption
        testId="subjects"
        columns={['Subject']}
        rows={registry.data?.subjects}
        empty="No subject yet."
        row={(subject) => (
          <tr key={subject}>
            <td>
              <button type="button" aria-pressed={selected === subject} onClick={() => setSelected(subject)}>
                {subject}
              </button>
            </td>
          </tr>
        )}
      />
      {selected && (
        <SubjectDetail
          key={`${selected}-${registrations}`}
          clusterId={clusterId}
          subject={selected}
          registryLevel={registry.data?.level}
          onDeleted={() => {
            setSelected(undefined);
            registry.reload();
          }}
        />
      )}
      <RegisterSchema
        key={selected ?? ''}
        clusterId={clusterId}
        subject={selected}
        onRegistered={(subject) => {
          registry.reload();
          setSelected(subject);
          setRegistrations(registrations + 1);
        }}
      />
      {registry.data && (
        <CompatibilityControl
          key={registry.data.level}
          clusterId={clusterId}
          subject={undefined}
          level={registry.data.level}
          onChanged={registry.reload}
        />
      )}
    </Page>
  );
}

interface ConnectorState {
  status?: {
    connector: { state: string; trace?: string };
    tasks: { id: number; state: string; trace?: string }[];
    type?: string;
  };
  info?: { type?: string; config?: Record<string, string> };
}

const connectPath = (clusterId: string, path: string) =>
  `/streaming/${encodeURIComponent(clusterId)}/connect${path}`;

/** How often the connectors are read again while the page is open: Connect emits no events. */
const CONNECTOR_REFRESH_MS = 3000;

function CreateConnector({ clusterId, onCreated }: { clusterId: string; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [text, setText] = useState(EXAMPLE_CONNECTOR);
  const create = useAction(async () => {
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch (error) {
      throw new Error(`the configuration is not JSON: ${(error as Error).message}`);
    }
    await wireCall('POST', connectPath(clusterId, '/connectors'), { name, config });
    setName('');
    onCreated();
  });
  return (
    <ActionForm
      id="create-connector"
      heading="Create a connector"
      class="card"
      action={{ ...create, error: undefined }}
      submit="Create connector"
    >
      <div class="form-grid">
        <TextInput id="connector-name" label="Connector name" value={name} onValue={setName} />
      </div>
      <CodeArea
        id="connector-config"
        label="Configuration (JSON)"
        value={text}
        onValue={setText}
        error={create.error}
      />
    </ActionForm>
  );
}

/** The first line of a task's trace: the exception and its message. */
const firstLine = (trace: string | undefined) => trace?.split('\n')[0] ?? '';

function ConnectorRow({
  clusterId,
  name,
  state,
  onChanged,
}: {
  clusterId: string;
  name: string;
  state: ConnectorState;
  onChanged: () => void;
}) {
  const base = `/connectors/${encodeURIComponent(name)}`;
  const act = useAction(async (method: string, path: string) => {
    await wireCall(method, connectPath(clusterId, `${base}${path}`));
    onChanged();
  });
  const connectorState = state.status?.connector.state ?? 'UNASSIGNED';
  const paused = connectorState === 'PAUSED';
  return (
    <tr data-testid={`connector-${name}`}>
      <td>{name}</td>
      <td>{state.info?.type ?? state.status?.type ?? '—'}</td>
      <td>
        <StatusBadge status={connectorState.toLowerCase()} />
      </td>
      <td>
        <ul class="plain-list">
          {state.status?.tasks.map((task) => (
            <li key={task.id} data-testid={`task-${name}-${task.id}`}>
              Task {task.id}: <StatusBadge status={task.state.toLowerCase()} />
              {task.state === 'FAILED' && task.trace && <p class="task-trace">{firstLine(task.trace)}</p>}
            </li>
          ))}
          {state.status?.tasks.length === 0 && <li class="muted">No task.</li>}
        </ul>
      </td>
      <td>
        <div class="row-actions">
          <button
            type="button"
            disabled={act.busy}
            aria-label={`${paused ? 'Resume' : 'Pause'} ${name}`}
            onClick={() => void act.run('PUT', paused ? '/resume' : '/pause')}
          >
            {paused ? 'Resume' : 'Pause'}
          </button>
          <button
            type="button"
            disabled={act.busy}
            aria-label={`Restart ${name}`}
            onClick={() => void act.run('POST', '/restart?includeTasks=true')}
          >
            Restart
          </button>
          <ConfirmButton
            question={`Delete the connector ${name}?`}
            label={`Delete ${name}`}
            disabled={act.busy}
            onConfirm={() => void act.run('DELETE', '')}
          >
            Delete
          </ConfirmButton>
        </div>
        <ErrorNotice error={act.error} />
      </td>
    </tr>
  );
}

/** Connectors with their state and each task's, read again while open; create and operate them. */
export function ConnectorsPage({ clusterId }: { clusterId: string }) {
  const connectors = useLoad(
    async () =>
      Object.entries(
        await wireCall<Record<string, ConnectorState>>(
          'GET',
          connectPath(clusterId, '/connectors?expand=status&expand=info'),
        ),
      ),
    [clusterId],
  );
  useRefreshWhile(true, connectors.reload, CONNECTOR_REFRESH_MS);
  return (
    <Page title="Connectors">
      <p>
        <Link href={`/streaming-clusters/${clusterId}`}>← The cluster</Link>
      </p>
      <ErrorNotice error={connectors.error} />
      <ResourceTable
        label={`Connectors and their tasks, read again every ${CONNECTOR_REFRESH_MS / 1000} s while this page is open`}
        caption
        testId="connectors"
        columns={['Name', 'Type', 'State', 'Tasks']}
        actions
        rows={connectors.data}
        empty="No connector yet."
        row={([name, state]) => (
          <ConnectorRow
            key={name}
            clusterId={clusterId}
            name={name}
            state={state}
            onChanged={connectors.reload}
          />
        )}
      />
      <CreateConnector clusterId={clusterId} onCreated={connectors.reload} />
    </Page>
  );
}
