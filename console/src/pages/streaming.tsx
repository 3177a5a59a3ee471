/**
 * Streaming clusters: list and create; a cluster's connection, topics, users and groups (with
 * links to its schema registry and connectors); a group's lag over time; a topic's records.
 */
import { useEffect, useState } from 'preact/hooks';
import { CloudplaneError, dataOf } from '../../../sdk/index.ts';
import { Link } from '../components/link.tsx';
import { lagPoints, withSample, type LagSample } from '../lag-series.ts';
import { DetailPage, Facts } from '../components/detail.tsx';
import { ActionForm, ShownOnce, SelectInput, TextInput } from '../components/form.tsx';
import { ListPage, ResourceTable } from '../components/table.tsx';
import {
  ErrorNotice,
  formatDate,
  Page,
  StatusBadge,
  useAction,
  useLoad,
  useRefreshWhile,
} from '../components/ui.tsx';
import { navigate } from '../router.ts';
import { api } from '../session.ts';

const TIERS = ['starter', 'pro', 'enterprise'] as const;
type Tier = (typeof TIERS)[number];
const STREAMING_EVENTS = ['streaming_cluster', 'streaming_topic', 'streaming_user'];

function CreateCluster() {
  const [name, setName] = useState('');
  const [tier, setTier] = useState<Tier>('starter');
  const [region, setRegion] = useState('us-east-1');
  const create = useAction(async () => {
    const cluster = dataOf(await api.POST('/v1/streaming/clusters', { body: { name, tier, region } }));
    navigate(`/streaming-clusters/${cluster.id}`);
  });
  return (
    <ActionForm
      id="create-cluster"
      heading="Create a streaming cluster"
      action={create}
      submit="Create cluster"
    >
      <TextInput id="cluster-name" label="Name" value={name} onValue={setName} />
      <SelectInput id="cluster-tier" label="Tier" choices={TIERS} value={tier} onValue={setTier} />
      <TextInput id="cluster-region" label="Region" value={region} onValue={setRegion} />
    </ActionForm>
  );
}

export function StreamingClusters() {
  const clusters = useLoad(async () => dataOf(await api.GET('/v1/streaming/clusters')), [], STREAMING_EVENTS);
  return (
    <ListPage
      title="Streaming"
      create={<CreateCluster />}
      error={clusters.error}
      label="Event-streaming clusters (Kafka protocol)"
      caption
      columns={['Name', 'Tier', 'Region', 'Status', 'Created']}
      rows={clusters.data}
      empty="No streaming cluster yet."
      row={(cluster) => (
        <tr key={cluster.id}>
          <td>
            <Link href={`/streaming-clusters/${cluster.id}`}>{cluster.name}</Link>
          </td>
          <td>{cluster.tier}</td>
          <td>{cluster.region}</td>
          <td>
            <StatusBadge status={cluster.status} />
          </td>
          <td>{formatDate(cluster.created_at)}</td>
        </tr>
      )}
    />
  );
}

function CreateTopic({ clusterId, onCreated }: { clusterId: string; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [partitions, setPartitions] = useState(1);
  const create = useAction(async () => {
    await api.POST('/v1/streaming/clusters/{id}/topics', {
      params: { path: { id: clusterId } },
      body: { name, partitions },
    });
    setName('');
    onCreated();
  });
  return (
    <ActionForm id="create-topic" heading="Create a topic" level={3} action={create} submit="Create topic">
      <TextInput id="topic-name" label="Topic name" value={name} onValue={setName} />
      <TextInput
        id="topic-partitions"
        label="Partitions"
        type="number"
        min={1}
        value={partitions}
        onValue={(value) => setPartitions(Number(value))}
      />
    </ActionForm>
  );
}

/**
 * A cluster user: SCRAM-SHA-512 credentials (the password generated and shown once), allowed to
 * read and write the topics whose names start with a prefix, and to consume in matching groups.
 */
function CreateUser({ clusterId, onCreated }: { clusterId: string; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [prefix, setPrefix] = useState('');
  const [created, setCreated] = useState<{ name: string; password: string }>();
  const create = useAction(async () => {
    const user = dataOf(
      await api.POST('/v1/streaming/clusters/{id}/users', {
        params: { path: { id: clusterId } },
        body: {
          name,
          consumer_group: `${prefix}*`,
          acls: [
            {
              resource_type: 'topic',
              // Kafka's literal `*` is every topic; an empty prefix means the same.
              pattern_type: prefix ? 'prefixed' : 'literal',
              name: prefix || '*',
              operations: ['read', 'write', 'describe'],
              permission: 'allow',
            },
          ],
        },
      }),
    );
    setCreated({ name: user.name ?? name, password: user.password ?? '' });
    setName('');
    onCreated();
  });
  return (
    <>
      {created && (
        <ShownOnce secret={created.password} testId="new-user-password" onDone={() => setCreated(undefined)}>
          The password of <strong>{created.name}</strong> is shown this once:
        </ShownOnce>
      )}
      <ActionForm id="create-user" heading="Create a user" level={3} action={create} submit="Create user">
        <TextInput id="user-name" label="User name" value={name} onValue={setName} />
        <TextInput
          id="user-prefix"
          label="Topic prefix"
          hint="Reads and writes the topics starting with it, consumes in the groups starting with it; empty: all."
          required={false}
          value={prefix}
          onValue={setPrefix}
        />
      </ActionForm>
    </>
  );
}

export function StreamingClusterDetail({ id }: { id: string }) {
  const path = { params: { path: { id } } };
  const cluster = useLoad(
    async () => dataOf(await api.GET('/v1/streaming/clusters/{id}', path)),
    [id],
    STREAMING_EVENTS,
  );
  const running = cluster.data?.status === 'running';
  const children = useLoad(
    async () => {
      // Consumer groups are asked of the brokers: only a running cluster answers.
      const [topics, users, groups] = await Promise.all([
        api.GET('/v1/streaming/clusters/{id}/topics', path),
        api.GET('/v1/streaming/clusters/{id}/users', path),
        running ? api.GET('/v1/streaming/clusters/{id}/consumer-groups', path) : undefined,
      ]);
      return { topics: dataOf(topics), users: dataOf(users), groups: groups ? dataOf(groups) : [] };
    },
    [id, running],
    STREAMING_EVENTS,
  );
  // Topics and users have no events of their own: their rows are read again while one is pending.
  const settling = [...(children.data?.topics ?? []), ...(children.data?.users ?? [])].some(
    (child) => child.status === 'pending',
  );
  useRefreshWhile(settling, children.reload, 2000);
  const remove = useAction(async () => {
    await api.DELETE('/v1/streaming/clusters/{id}', path);
    navigate('/streaming-clusters');
  });
  const detail = cluster.data;
  return (
    <DetailPage
      title={detail?.name ? `Cluster ${detail.name}` : 'Streaming cluster'}
      backHref="/streaming-clusters"
      backLabel="← All clusters"
      error={cluster.error ?? remove.error}
      remove={{
        ...remove,
        label: 'Delete cluster',
        question: `Delete the cluster ${detail?.name} with its topics and users?`,
        loaded: Boolean(detail),
      }}
    >
      {detail && (
        <Facts
          facts={[
            ['Status', <StatusBadge status={detail.status} />],
            [
              'Tier',
              <>
                {detail.tier} ({detail.brokers} brokers)
              </>,
            ],
            ['Bootstrap servers', <code>{detail.bootstrap_servers?.join(', ') || '—'}</code>],
            ['Schema registry', <code>{detail.schema_registry_url}</code>],
            ['Monthly price', detail.monthly_price_usd == null ? 'custom' : `$${detail.monthly_price_usd}`],
          ]}
        />
      )}
      {detail?.message && <p class="notice">{detail.message}</p>}
      {detail && (
        <ul class="plain-list inline-list" aria-label="More of this cluster">
          <li>
            <Link href={`/streaming-clusters/${id}/schema-registry`}>Schema registry</Link>
          </li>
          <li>
            <Link href={`/streaming-clusters/${id}/connectors`}>Connectors</Link>
          </li>
        </ul>
      )}
      <ErrorNotice error={children.error} />
      <h2>Topics</h2>
      <ResourceTable
        label="Topics"
        columns={['Name', 'Partitions', 'Retention', 'Cleanup', 'Status']}
        rows={children.data?.topics}
        empty="No topic yet."
        row={(topic) => (
          <tr key={topic.name}>
            <td>
              <Link href={`/streaming-clusters/${id}/topics/${encodeURIComponent(topic.name!)}`}>
                {topic.name}
              </Link>
            </td>
            <td>{topic.partitions}</td>
            <td>{topic.retention}</td>
            <td>{topic.cleanup_policy}</td>
            <td>
              <StatusBadge status={topic.status} />
            </td>
          </tr>
        )}
      />
      {running && <CreateTopic clusterId={id} onCreated={children.reload} />}
      <h2>Users</h2>
      <ul class="plain-list">
        {children.data?.users.map((user) => (
          <li key={user.name}>
            <strong>{user.name}</strong> <span class="muted">{user.mechanism}</span>{' '}
            <StatusBadge status={user.status} />
          </li>
        ))}
        {children.data?.users.length === 0 && <li class="muted">None.</li>}
      </ul>
      {running && <CreateUser clusterId={id} onCreated={children.reload} />}
      <h2>Consumer groups</h2>
      <ResourceTable
        label="Consumer groups"
        columns={['Group', 'State', 'Members', 'Total lag']}
        rows={children.data?.groups}
        empty="No consumer group."
        row={(group) => (
          <tr key={group.group_id}>
            <td>
              <Link href={`/streaming-clusters/${id}/groups/${encodeURIComponent(group.group_id!)}`}>
                {group.group_id}
              </Link>
            </td>
            <td>{group.state}</td>
            <td>{group.members}</td>
            <td>{group.total_lag}</td>
          </tr>
        )}
      />
    </DetailPage>
  );
}

/** The message browser: a topic's newest records, or those from an offset, read through the API. */
export function TopicMessages({ clusterId, topic }: { clusterId: string; topic: string }) {
  const [partition, setPartition] = useState('');
  const [offset, setOffset] = useState('');
  const [limit, setLimit] = useState(20);
  const [asked, setAsked] = useState(0);
  const messages = useLoad(
    async () =>
      dataOf(
        await api.GET('/v1/streaming/clusters/{id}/topics/{name}/messages', {
          params: {
            path: { id: clusterId, name: topic },
            query: {
              limit,
              ...(partition === '' ? {} : { partition: Number(partition) }),
              ...(offset === '' ? {} : { offset: Number(offset) }),
            },
          },
        }),
      ),
    [clusterId, topic, asked],
  );
  return (
    <Page title={`Topic ${topic}`}>
      <p>
        <Link href={`/streaming-clusters/${clusterId}`}>← The cluster</Link>
      </p>
      <ActionForm
        id="browse"
        heading="Browse records"
        action={{ busy: messages.loading, error: undefined, run: async () => setAsked(asked + 1) }}
        submit="Read records"
      >
        <TextInput
          id="browse-partition"
          label="Partition"
          hint="Empty: every partition."
          type="number"
          min={0}
          required={false}
          value={partition}
          onValue={setPartition}
        />
        <TextInput
          id="browse-offset"
          label="From offset"
          hint="Empty: the newest records."
          type="number"
          min={0}
          required={false}
          value={offset}
          onValue={setOffset}
        />
        <TextInput
          id="browse-limit"
          label="How many"
          type="number"
          min={1}
          max={100}
          required={false}
          value={limit}
          onValue={(value) => setLimit(Number(value))}
        />
      </ActionForm>
      <ErrorNotice error={messages.error} />
      {messages.error instanceof CloudplaneError && messages.error.status === 409 && (
        <p class="notice" data-testid="records-unreadable">
          The platform cannot show these records now, for the reason above: a cluster run on Kubernetes
          (Strimzi) is never browsed by the platform, and a new topic is read once it is on the brokers. A
          Kafka consumer reads them with the cluster&apos;s bootstrap servers and a user of the cluster (
          <code>cloudplane streaming credentials</code> writes its client properties).
        </p>
      )}
      <ResourceTable
        label="Records, oldest first (reads are audited)"
        caption
        testId="messages"
        columns={['Partition', 'Offset', 'Time', 'Key', 'Value']}
        rows={messages.data}
        empty="No record."
        row={(message) => (
          <tr key={`${message.partition}-${message.offset}`}>
            <td>{message.partition}</td>
            <td>{message.offset}</td>
            <td>{formatDate(message.timestamp)}</td>
            <td>
              <code>{message.key ?? '—'}</code>
            </td>
            <td class="record-value">
              {message.encoding === 'base64' && <span class="muted">base64 </span>}
              <code>{message.value ?? 'null'}</code>
            </td>
          </tr>
        )}
      />
    </Page>
  );
}

/** How often the group page reads the lag again while open. */
const LAG_SAMPLE_MS = 3000;
const LAG_CHART_WIDTH = 600;
const LAG_CHART_HEIGHT = 120;

/**
 * A consumer group's lag: per partition now, and its total over time. The API answers the lag as
 * it is and keeps no history, so the chart is sampled from it while this page is open (and says so).
 */
export function ConsumerGroupLag({ clusterId, group }: { clusterId: string; group: string }) {
  const lag = useLoad(
    async () =>
      dataOf(
        await api.GET('/v1/streaming/clusters/{id}/consumer-groups/{group}/lag', {
          params: { path: { id: clusterId, group } },
        }),
      ),
    [clusterId, group],
  );
  useRefreshWhile(true, lag.reload, LAG_SAMPLE_MS);
  const [samples, setSamples] = useState<LagSample[]>([]);
  useEffect(() => {
    if (lag.data)
      setSamples((kept) => withSample(kept, { at: Date.now(), totalLag: lag.data!.total_lag ?? 0 }));
  }, [lag.data]);
  const last = samples[samples.length - 1];
  return (
    <Page title={`Consumer group ${group}`}>
      <p>
        <Link href={`/streaming-clusters/${clusterId}`}>← The cluster</Link>
      </p>
      <ErrorNotice error={lag.error} />
      {lag.data && (
        <Facts
          facts={[
            ['Total lag', <span data-testid="total-lag">{lag.data.total_lag}</span>],
            ['Status', <StatusBadge status={lag.data.status} />],
            ['Time behind', `${lag.data.time_lag_seconds ?? 0} s`],
          ]}
        />
      )}
      <figure class="chart lag-chart card" data-testid="lag-chart">
        <svg
          viewBox={`-4 -4 ${LAG_CHART_WIDTH + 8} ${LAG_CHART_HEIGHT + 8}`}
          role="img"
          aria-labelledby="lag-chart-caption"
          preserveAspectRatio="none"
        >
          <line x1={0} y1={LAG_CHART_HEIGHT} x2={LAG_CHART_WIDTH} y2={LAG_CHART_HEIGHT} class="chart-axis" />
          <polyline points={lagPoints(samples, LAG_CHART_WIDTH, LAG_CHART_HEIGHT)} class="chart-line" />
        </svg>
        <figcaption id="lag-chart-caption">
          Total lag over {samples.length} {samples.length === 1 ? 'sample' : 'samples'}, read every{' '}
          {LAG_SAMPLE_MS / 1000} s while this page is open (the platform keeps no lag history)
          {last
            ? `; now ${last.totalLag}, highest ${Math.max(...samples.map((sample) => sample.totalLag))}`
            : ''}
          .
        </figcaption>
      </figure>
      <ResourceTable
        label="Lag per partition"
        caption
        columns={[
          'Topic',
          { label: 'Partition', number: true },
          { label: 'Committed', number: true },
          { label: 'End', number: true },
          { label: 'Lag', number: true },
          'Status',
        ]}
        rows={lag.data?.partitions}
        empty="No committed offset."
        row={(partition) => (
          <tr key={`${partition.topic}-${partition.partition}`}>
            <td>{partition.topic}</td>
            <td class="number">{partition.partition}</td>
            <td class="number">{partition.committed_offset}</td>
            <td class="number">{partition.log_end_offset}</td>
            <td class="number">{partition.lag}</td>
            <td>{partition.status}</td>
          </tr>
        )}
      />
    </Page>
  );
}
