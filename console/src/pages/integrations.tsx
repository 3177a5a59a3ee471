/**
 * Integrations: list; connect a chat workspace through its incoming webhook; an integration's
 * state, a connection test with its result, the events forwarded to it, and deleting it.
 */
import { useState } from 'preact/hooks';
import { DetailPage, Facts } from '../components/detail.tsx';
import { ActionForm, TextInput } from '../components/form.tsx';
import { Link } from '../components/link.tsx';
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

const INTEGRATION_EVENTS = ['integration'];
/** How often a running connection test is read again. */
const TEST_POLL_MS = 1000;

/** A chat workspace: its incoming webhook, and the channel each kind of event goes to. */
function ConnectChat() {
  const [name, setName] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [deployments, setDeployments] = useState('#deployments');
  const [alerts, setAlerts] = useState('');
  const create = useAction(async () => {
    // The document leaves credentials and configuration free-form, which the SDK types as empty.
    const credentials: Record<string, unknown> = { webhook_url: webhookUrl };
    const configuration: Record<string, unknown> = {
      channels: { deployments, ...(alerts ? { alerts } : {}) },
    };
    const { data } = await api.POST('/api/v1/integrations', {
      body: {
        name,
        type: 'chat',
        credentials: credentials as Record<string, never>,
        configuration: configuration as Record<string, never>,
      },
    });
    navigate(`/integrations/${data!.id}`);
  });
  return (
    <ActionForm id="connect-chat" heading="Connect a chat workspace" action={create} submit="Connect">
      <TextInput id="integration-name" label="Name" value={name} onValue={setName} />
      <TextInput
        id="chat-webhook"
        label="Incoming webhook URL"
        hint="The workspace's incoming webhook; kept as a secret and never shown again."
        type="password"
        autocomplete="off"
        value={webhookUrl}
        onValue={setWebhookUrl}
      />
      <TextInput
        id="chat-deployments"
        label="Deployments channel"
        value={deployments}
        onValue={setDeployments}
      />
      <TextInput
        id="chat-alerts"
        label="Alerts channel"
        required={false}
        value={alerts}
        onValue={setAlerts}
      />
    </ActionForm>
  );
}

export function Integrations() {
  const integrations = useLoad(
    async () => (await api.GET('/api/v1/integrations')).data ?? [],
    [],
    INTEGRATION_EVENTS,
  );
  return (
    <ListPage
      title="Integrations"
      create={
        <>
          <ConnectChat />
          <p class="muted">
            Other providers (code hosts, edge networks, monitoring, paging) connect through the API,
            <code>POST /api/v1/integrations</code>; they are listed here with the rest.
          </p>
        </>
      }
      error={integrations.error}
      label="Integrations of this organization"
      caption
      columns={['Name', 'Type', 'Status', 'Created']}
      rows={integrations.data}
      empty="No integration yet."
      row={(integration) => (
        <tr key={integration.id}>
          <td>
            <Link href={`/integrations/${integration.id}`}>{integration.name}</Link>
          </td>
          <td>{integration.type}</td>
          <td>
            <StatusBadge status={integration.status} />
          </td>
          <td>{formatDate(integration.created_at)}</td>
        </tr>
      )}
    />
  );
}

/** A connection test: started, then read again until it passed or failed. */
function ConnectionTest({ integrationId }: { integrationId: string }) {
  const [testId, setTestId] = useState<string>();
  const start = useAction(async () => {
    const { data } = await api.POST('/api/v1/integrations/{id}/test', {
      params: { path: { id: integrationId } },
    });
    setTestId(data?.test_id);
  });
  const test = useLoad(
    async () =>
      testId
        ? (
            await api.GET('/api/v1/integrations/{id}/test/{test_id}', {
              params: { path: { id: integrationId, test_id: testId } },
            })
          ).data
        : undefined,
    [integrationId, testId],
  );
  useRefreshWhile(test.data?.status === 'in-progress', test.reload, TEST_POLL_MS);
  const result = test.data?.result;
  return (
    <section class="card" aria-labelledby="connection-test">
      <h2 id="connection-test">Connection test</h2>
      <ErrorNotice error={start.error ?? test.error} />
      {test.data && (
        <div aria-live="polite" data-testid="test-result">
          <p>
            <StatusBadge status={test.data.status} />
          </p>
          {result && (
            <Facts
              facts={[
                ['Connection', result.connection],
                ['Authentication', result.authentication],
                ['Permissions', result.permissions],
                ['Latency', `${result.latency_ms} ms`],
              ]}
            />
          )}
          {test.data.errors && test.data.errors.length > 0 && (
            <ul class="notice notice-error">
              {test.data.errors.map((error) => (
                <li key={error}>{error}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div class="form-actions">
        <button
          type="button"
          disabled={start.busy || test.data?.status === 'in-progress'}
          onClick={() => void start.run()}
        >
          Test connection
        </button>
      </div>
    </section>
  );
}

export function IntegrationDetail({ id }: { id: string }) {
  const path = { params: { path: { id } } };
  const integration = useLoad(
    async () => (await api.GET('/api/v1/integrations/{id}', path)).data,
    [id],
    INTEGRATION_EVENTS,
  );
  const events = useLoad(
    async () => (await api.GET('/api/v1/integrations/{id}/events', path)).data ?? [],
    [id],
    INTEGRATION_EVENTS,
  );
  const remove = useAction(async () => {
    await api.DELETE('/api/v1/integrations/{id}', path);
    navigate('/integrations');
  });
  // A new integration connects in the background; its status is read again until it settles.
  useRefreshWhile(integration.data?.status === 'pending', integration.reload, 2000);
  const detail = integration.data;
  return (
    <DetailPage
      title={detail?.name ? `Integration ${detail.name}` : 'Integration'}
      backHref="/integrations"
      backLabel="← All integrations"
      error={integration.error ?? remove.error}
      remove={{
        ...remove,
        label: 'Delete integration',
        question: `Delete the integration ${detail?.name}? Nothing more is forwarded to it.`,
        loaded: Boolean(detail),
      }}
    >
      {detail && (
        <Facts
          facts={[
            ['Status', <StatusBadge status={detail.status} />],
            ['Type', detail.type],
            ['Last error', detail.last_error ?? '—'],
            ['Created', formatDate(detail.created_at)],
          ]}
        />
      )}
      <ConnectionTest integrationId={id} />
      <h2>Events forwarded</h2>
      <ErrorNotice error={events.error} />
      <ResourceTable
        label="Events forwarded, newest first"
        caption
        columns={['Event', 'Status', 'Answer', 'Sent']}
        rows={events.data}
        empty="No event forwarded yet."
        row={(event) => (
          <tr key={event.id}>
            <td>
              <code>{event.event_type}</code>
            </td>
            <td>{event.status}</td>
            <td>{event.response_status ?? '—'}</td>
            <td>{formatDate(event.sent_at)}</td>
          </tr>
        )}
      />
    </DetailPage>
  );
}
