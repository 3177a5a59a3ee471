/**
 * Managed databases: list and create; a database's endpoint, credentials behind "Reveal",
 * rotation, backups and restore, and the backup schedule.
 */
import { useState } from 'preact/hooks';
import { CloudplaneError, dataOf } from '../../../sdk/index.ts';
import { Link } from '../components/link.tsx';
import { DetailPage, Facts } from '../components/detail.tsx';
import { ActionForm, ConfirmButton, SelectInput, TextInput } from '../components/form.tsx';
import { SecretValues } from '../components/secret-values.tsx';
import { ListPage, ResourceTable } from '../components/table.tsx';
import {
  ErrorNotice,
  formatDate,
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
    <ActionForm id="create-database" heading="Create a database" action={create} submit="Create database">
      <TextInput id="database-name" label="Name" value={name} onValue={setName} />
      <SelectInput
        id="database-engine"
        label="Engine"
        choices={ENGINES}
        value={engine}
        onValue={(next) => {
          setEngine(next);
          setSize(next === 'redis' ? 64 : 10);
        }}
      />
      <TextInput
        id="database-size"
        label={isRedis ? 'Memory (MiB)' : 'Storage (GB)'}
        type="number"
        min={isRedis ? 16 : 1}
        value={size}
        onValue={(value) => setSize(Number(value))}
      />
    </ActionForm>
  );
}

export function Databases() {
  const databases = useLoad(async () => dataOf(await api.GET('/v1/databases')), [], DATABASE_EVENTS);
  return (
    <ListPage
      title="Databases"
      create={<CreateDatabase />}
      error={databases.error}
      label="Managed databases"
      caption
      columns={['Name', 'Engine', 'Status', 'Size', 'Created']}
      rows={databases.data}
      empty="No database yet."
      row={(database) => (
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
          <td>{database.memory_mb ? `${database.memory_mb} MiB` : `${database.storage_gb ?? '—'} GB`}</td>
          <td>{formatDate(database.created_at)}</td>
        </tr>
      )}
    />
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
        <SecretValues values={values} testId="credentials" />
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
        <ConfirmButton
          question="Rotate the password? The current one stops working at once."
          disabled={rotate.busy}
          onConfirm={() => void rotate.run()}
        >
          Rotate password
        </ConfirmButton>
      </div>
    </section>
  );
}

/**
 * The database's backup schedule: one cron (five fields, UTC) and how long its backups are kept.
 * No schedule is the API's 404, shown as none rather than as an error.
 */
function BackupSchedule({ databaseId }: { databaseId: string }) {
  const path = { params: { path: { id: databaseId } } };
  const schedule = useLoad(async () => {
    try {
      return dataOf(await api.GET('/v1/databases/{id}/backup-schedule', path));
    } catch (error) {
      if (error instanceof CloudplaneError && error.status === 404) return null;
      throw error;
    }
  }, [databaseId]);
  const [cron, setCron] = useState('0 3 * * *');
  const [retentionDays, setRetentionDays] = useState(7);
  const save = useAction(async () => {
    await api.PUT('/v1/databases/{id}/backup-schedule', {
      ...path,
      body: { cron, retention_days: retentionDays },
    });
    schedule.reload();
  });
  const remove = useAction(async () => {
    await api.DELETE('/v1/databases/{id}/backup-schedule', path);
    schedule.reload();
  });
  const current = schedule.data;
  return (
    <section aria-labelledby="backup-schedule">
      <h2 id="backup-schedule">Backup schedule</h2>
      <ErrorNotice error={schedule.error ?? remove.error} />
      {current === null && <p class="muted">No schedule: backups are taken only when asked.</p>}
      {current && (
        <div data-testid="backup-schedule">
          <Facts
            facts={[
              ['Cron (UTC)', <code>{current.cron}</code>],
              ['Kept for', `${current.retention_days} ${current.retention_days === 1 ? 'day' : 'days'}`],
              ['Next backup', formatDate(current.next_run_at)],
            ]}
          />
          <ConfirmButton
            question="Remove the backup schedule? The backups already taken are kept until they expire."
            disabled={remove.busy}
            onConfirm={() => void remove.run()}
          >
            Remove schedule
          </ConfirmButton>
        </div>
      )}
      <ActionForm
        id="set-schedule"
        heading={current ? 'Change the schedule' : 'Schedule backups'}
        level={3}
        action={save}
        submit="Save schedule"
      >
        <TextInput
          id="schedule-cron"
          label="Cron expression"
          hint="Five fields in UTC: minute hour day-of-month month day-of-week, e.g. 0 3 * * * for 03:00 daily."
          value={cron}
          onValue={setCron}
        />
        <TextInput
          id="schedule-retention"
          label="Keep each backup (days)"
          type="number"
          min={1}
          max={3650}
          value={retentionDays}
          onValue={(value) => setRetentionDays(Number(value))}
        />
      </ActionForm>
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
      <ResourceTable
        label="Backups"
        columns={['Started', 'Status', 'Size', 'Expires']}
        actions
        rows={backups.data}
        empty="No backup yet."
        row={(backup) => (
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
        )}
      />
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
    <DetailPage
      title={detail?.name ? `Database ${detail.name}` : 'Database'}
      backHref="/databases"
      backLabel="← All databases"
      error={database.error ?? remove.error}
      remove={{
        ...remove,
        label: 'Delete database',
        question: `Delete the database ${detail?.name}?`,
        loaded: Boolean(detail),
      }}
    >
      {detail && (
        <>
          <Facts
            facts={[
              ['Status', <StatusBadge status={detail.status} />],
              [
                'Engine',
                <>
                  {detail.engine} {detail.version}
                </>,
              ],
              [
                'Endpoint',
                detail.endpoint ? <code>{`${detail.endpoint.host}:${detail.endpoint.port}`}</code> : '—',
              ],
              ['Realization', detail.realization],
              ['Created', formatDate(detail.created_at)],
            ]}
          />
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
          {detail.status === 'available' && (
            <>
              <Backups databaseId={detail.id!} />
              <BackupSchedule databaseId={detail.id!} />
            </>
          )}
        </>
      )}
    </DetailPage>
  );
}
