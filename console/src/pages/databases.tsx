/** Managed databases: list and create; a database's endpoint, credentials behind "Reveal", rotation. */
import { useState } from 'preact/hooks';
import { dataOf } from '../../../sdk/index.ts';
import { Link } from '../components/link.tsx';
import {
  EmptyRow,
  ErrorNotice,
  Field,
  formatDate,
  Page,
  StatusBadge,
  useAction,
  useLoad,
  useRefreshWhile,
} from '../components/ui.tsx';
import { navigate } from '../router.ts';
import { api } from '../session.ts';

const ENGINES = ['postgresql', 'mysql', 'redis', 'mongodb'] as const;
type Engine = (typeof ENGINES)[number];
const DATABASE_EVENTS = ['database'];
const BACKUP_EVENTS = ['backup'];

function CreateDatabase() {
  const [name, setName] = useState('');
  const [engine, setEngine] = useState<Engine>('postgresql');
  const [size, setSize] = useState(engine === 'redis' ? 64 : 10);
  const isRedis = engine === 'redis';
  const create = useAction(async () => {
    const body = isRedis ? { name, engine, memory_mb: size } : { name, engine, storage_gb: size };
    const database = dataOf(await api.POST('/v1/databases', { body }));
    navigate(`/databases/${database.id}`);
  });
  return (
    <form
      class="card form-grid"
      aria-labelledby="create-database"
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h2 id="create-database">Create a database</h2>
      <Field id="database-name" label="Name">
        {() => (
          <input
            id="database-name"
            required
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="database-engine" label="Engine">
        {() => (
          <select
            id="database-engine"
            value={engine}
            onChange={(event) => {
              const next = event.currentTarget.value as Engine;
              setEngine(next);
              setSize(next === 'redis' ? 64 : 10);
            }}
          >
            {ENGINES.map((choice) => (
              <option key={choice}>{choice}</option>
            ))}
          </select>
        )}
      </Field>
      <Field id="database-size" label={isRedis ? 'Memory (MiB)' : 'Storage (GB)'}>
        {() => (
          <input
            id="database-size"
            type="number"
            min={isRedis ? 16 : 1}
            required
            value={size}
            onInput={(event) => setSize(Number(event.currentTarget.value))}
          />
        )}
      </Field>
      <ErrorNotice error={create.error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Create database
        </button>
      </div>
    </form>
  );
}

export function Databases() {
  const databases = useLoad(async () => dataOf(await api.GET('/v1/databases')), [], DATABASE_EVENTS);
  return (
    <Page title="Databases">
      <CreateDatabase />
      <ErrorNotice error={databases.error} />
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Managed databases">
        <table>
          <caption>Managed databases</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Engine</th>
              <th scope="col">Status</th>
              <th scope="col">Size</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {databases.data?.length === 0 && <EmptyRow columns={5}>No database yet.</EmptyRow>}
            {databases.data?.map((database) => (
              <tr key={database.id}>
                <td>
                  <Link href={`/databases/${database.id}`}>{database.name}</Link>
                </td>
                <td>
                  {database.engine} {database.version}
                </td>
                <td>
                  <StatusBadge status={database.status} />
                </td>
                <td>
                  {database.memory_mb ? `${database.memory_mb} MiB` : `${database.storage_gb ?? '—'} GB`}
                </td>
                <td>{formatDate(database.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

/** The secret the database's credentials are kept in, read only when the user asks. */
function Credentials({
  databaseId,
  vaultClusterId,
  vaultPath,
}: {
  databaseId: string;
  vaultClusterId: string;
  vaultPath: string;
}) {
  const [values, setValues] = useState<Record<string, unknown>>();
  const reveal = useAction(async () => {
    const { data } = await api.GET('/api/v1/vault/{id}/secret/{path}', {
      params: { path: { id: vaultClusterId, path: vaultPath } },
    });
    // The vault's answer: `{data: {data: <the secret's keys>, metadata}}`.
    setValues(((data ?? {}) as { data?: { data?: Record<string, unknown> } }).data?.data ?? {});
  });
  const rotate = useAction(async () => {
    await api.POST('/v1/databases/{id}/credentials/rotate', {
      params: { path: { id: databaseId } },
    });
    setValues(undefined);
  });
  return (
    <section class="card" aria-labelledby="credentials">
      <h2 id="credentials">Credentials</h2>
      <p class="muted">
        Kept in vault <code>{vaultClusterId}</code> at <code>{vaultPath}</code>.
      </p>
      {values ? (
        <dl class="facts secret-values" data-testid="credentials">
          {Object.entries(values).map(([key, value]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>
                <code>{String(value)}</code>
              </dd>
            </div>
          ))}
        </dl>
      ) : (
        <p aria-live="polite">
          <span class="masked" aria-label="hidden">
            ••••••••••••
          </span>
        </p>
      )}
      <ErrorNotice error={reveal.error ?? rotate.error} />
      <div class="form-actions">
        {values ? (
          <button type="button" onClick={() => setValues(undefined)}>
            Hide
          </button>
        ) : (
          <button type="button" onClick={() => void reveal.run()} disabled={reveal.busy}>
            Reveal
          </button>
        )}
        <button
          type="button"
          class="danger"
          disabled={rotate.busy}
          onClick={() => {
            if (confirm('Rotate the password? The current one stops working at once.')) void rotate.run();
          }}
        >
          Rotate password
        </button>
      </div>
    </section>
  );
}

/** The database's backups: take one now, restore one into a new database (its name `<name>-restore-<n>`). */
function Backups({ databaseId }: { databaseId: string }) {
  const backups = useLoad(
    async () => dataOf(await api.GET('/v1/backups', { params: { query: { resource_id: databaseId } } })),
    [databaseId],
    BACKUP_EVENTS,
  );
  const [restored, setRestored] = useState<string>();
  const backUp = useAction(async () => {
    await api.POST('/v1/backups', { body: { resource_id: databaseId } });
    backups.reload();
  });
  const restore = useAction(async (backupId: string) => {
    const answer = dataOf(
      await api.POST('/v1/backups/{id}/restore', { params: { path: { id: backupId } }, body: {} }),
    );
    setRestored(answer.target_resource_id);
  });
  useRefreshWhile(
    (backups.data ?? []).some((backup) => backup.status === 'pending' || backup.status === 'running'),
    backups.reload,
    2000,
  );
  return (
    <section aria-labelledby="backups">
      <h2 id="backups">Backups</h2>
      <ErrorNotice error={backups.error ?? backUp.error ?? restore.error} />
      {restored && (
        <p class="notice" role="status">
          Restoring into a new database: <Link href={`/databases/${restored}`}>{restored}</Link>
        </p>
      )}
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Backups">
        <table>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Status</th>
              <th scope="col">Size</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {backups.data?.length === 0 && <EmptyRow columns={5}>No backup yet.</EmptyRow>}
            {backups.data?.map((backup) => (
              <tr key={backup.id}>
                <td>{formatDate(backup.started_at)}</td>
                <td>
                  <StatusBadge status={backup.status} />
                  {backup.message && <p class="hint">{backup.message}</p>}
                </td>
                <td>{backup.size_bytes == null ? '—' : `${backup.size_bytes.toLocaleString()} bytes`}</td>
                <td>{formatDate(backup.expires_at)}</td>
                <td>
                  <button
                    type="button"
                    disabled={backup.status !== 'completed' || restore.busy}
                    aria-label={`Restore the backup of ${formatDate(backup.started_at)}`}
                    onClick={() => void restore.run(backup.id!)}
                  >
                    Restore
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="form-actions">
        <button type="button" disabled={backUp.busy} onClick={() => void backUp.run()}>
          Back up now
        </button>
      </div>
    </section>
  );
}

export function DatabaseDetail({ id }: { id: string }) {
  const path = { params: { path: { id } } };
  const database = useLoad(
    async () => dataOf(await api.GET('/v1/databases/{id}', path)),
    [id],
    DATABASE_EVENTS,
  );
  const remove = useAction(async () => {
    await api.DELETE('/v1/databases/{id}', path);
    navigate('/databases');
  });
  const detail = database.data;
  return (
    <Page
      title={detail?.name ? `Database ${detail.name}` : 'Database'}
      actions={
        <button
          type="button"
          class="danger"
          disabled={remove.busy || !detail}
          onClick={() => {
            if (confirm(`Delete the database ${detail?.name}?`)) void remove.run();
          }}
        >
          Delete database
        </button>
      }
    >
      <p>
        <Link href="/databases">← All databases</Link>
      </p>
      <ErrorNotice error={database.error ?? remove.error} />
      {detail && (
        <>
          <dl class="facts">
            <div>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={detail.status} />
              </dd>
            </div>
            <div>
              <dt>Engine</dt>
              <dd>
                {detail.engine} {detail.version}
              </dd>
            </div>
            <div>
              <dt>Endpoint</dt>
              <dd>
                {detail.endpoint ? <code>{`${detail.endpoint.host}:${detail.endpoint.port}`}</code> : '—'}
              </dd>
            </div>
            <div>
              <dt>Realization</dt>
              <dd>{detail.realization}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatDate(detail.created_at)}</dd>
            </div>
          </dl>
          {detail.message && <p class="notice">{detail.message}</p>}
          {detail.credentials?.vault_cluster_id && detail.credentials.vault_path ? (
            <Credentials
              databaseId={detail.id!}
              vaultClusterId={detail.credentials.vault_cluster_id}
              vaultPath={detail.credentials.vault_path}
            />
          ) : (
            <p class="muted">Credentials appear here once the database is provisioned.</p>
          )}
          {detail.status === 'available' && <Backups databaseId={detail.id!} />}
        </>
      )}
    </Page>
  );
}
