/** Streaming clusters: list and create; a cluster's connection, topics, users and groups; a topic's records. */
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
    <form
      class="card form-grid"
      aria-labelledby="create-cluster"
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h2 id="create-cluster">Create a streaming cluster</h2>
      <Field id="cluster-name" label="Name">
        {() => (
          <input
            id="cluster-name"
            required
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="cluster-tier" label="Tier">
        {() => (
          <select
            id="cluster-tier"
            value={tier}
            onChange={(event) => setTier(event.currentTarget.value as Tier)}
          >
            {TIERS.map((choice) => (
              <option key={choice}>{choice}</option>
            ))}
          </select>
        )}
      </Field>
      <Field id="cluster-region" label="Region">
        {() => (
          <input
            id="cluster-region"
            required
            value={region}
            onInput={(event) => setRegion(event.currentTarget.value)}
          />
        )}
      </Field>
      <ErrorNotice error={create.error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Create cluster
        </button>
      </div>
    </form>
  );
}

export function StreamingClusters() {
  const clusters = useLoad(async () => dataOf(await api.GET('/v1/streaming/clusters')), [], STREAMING_EVENTS);
  return (
    <Page title="Streaming">
      <CreateCluster />
      <ErrorNotice error={clusters.error} />
      <div
        class="table-wrap"
        tabIndex={0}
        role="region"
        aria-label="Event-streaming clusters (Kafka protocol)"
      >
        <table>
          <caption>Event-streaming clusters (Kafka protocol)</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Tier</th>
              <th scope="col">Region</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {clusters.data?.length === 0 && <EmptyRow columns={5}>No streaming cluster yet.</EmptyRow>}
            {clusters.data?.map((cluster) => (
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
            ))}
          </tbody>
        </table>
      </div>
    </Page>
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
    <form
      class="card form-grid"
      aria-labelledby="create-topic"
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h3 id="create-topic">Create a topic</h3>
      <Field id="topic-name" label="Topic name">
        {() => (
          <input
            id="topic-name"
            required
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="topic-partitions" label="Partitions">
        {() => (
          <input
            id="topic-partitions"
            type="number"
            min={1}
            required
            value={partitions}
            onInput={(event) => setPartitions(Number(event.currentTarget.value))}
          />
        )}
      </Field>
      <ErrorNotice error={create.error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Create topic
        </button>
      </div>
    </form>
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
        <div class="notice" role="status">
          <p>
            The password of <strong>{created.name}</strong> is shown this once:
          </p>
          <p>
            <code class="secret" data-testid="new-user-password">
              {created.password}
            </code>
          </p>
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
      <form
        class="card form-grid"
        aria-labelledby="create-user"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <h3 id="create-user">Create a user</h3>
        <Field id="user-name" label="User name">
          {() => (
            <input
              id="user-name"
              required
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id="user-prefix"
          label="Topic prefix"
          hint="Reads and writes the topics starting with it, consumes in the groups starting with it; empty: all."
        >
          {(describedBy) => (
            <input
              id="user-prefix"
              aria-describedby={describedBy}
              value={prefix}
              onInput={(event) => setPrefix(event.currentTarget.value)}
            />
          )}
        </Field>
        <ErrorNotice error={create.error} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={create.busy}>
            Create user
          </button>
        </div>
      </form>
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
    <Page
      title={detail?.name ? `Cluster ${detail.name}` : 'Streaming cluster'}
      actions={
        <button
          type="button"
          class="danger"
          disabled={remove.busy || !detail}
          onClick={() => {
            if (confirm(`Delete the cluster ${detail?.name} with its topics and users?`)) void remove.run();
          }}
        >
          Delete cluster
        </button>
      }
    >
      <p>
        <Link href="/streaming-clusters">← All clusters</Link>
      </p>
      <ErrorNotice error={cluster.error ?? remove.error} />
      {detail && (
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={detail.status} />
            </dd>
          </div>
          <div>
            <dt>Tier</dt>
            <dd>
              {detail.tier} ({detail.brokers} brokers)
            </dd>
          </div>
          <div>
            <dt>Bootstrap servers</dt>
            <dd>
              <code>{detail.bootstrap_servers?.join(', ') || '—'}</code>
            </dd>
          </div>
          <div>
            <dt>Schema registry</dt>
            <dd>
              <code>{detail.schema_registry_url}</code>
            </dd>
          </div>
          <div>
            <dt>Monthly price</dt>
            <dd>{detail.monthly_price_usd == null ? 'custom' : `$${detail.monthly_price_usd}`}</dd>
          </div>
        </dl>
      )}
      {detail?.message && <p class="notice">{detail.message}</p>}
      <ErrorNotice error={children.error} />
      <h2>Topics</h2>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Topics">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Partitions</th>
              <th scope="col">Retention</th>
              <th scope="col">Cleanup</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {children.data?.topics.length === 0 && <EmptyRow columns={5}>No topic yet.</EmptyRow>}
            {children.data?.topics.map((topic) => (
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
            ))}
          </tbody>
        </table>
      </div>
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
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Consumer groups">
        <table>
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">State</th>
              <th scope="col">Members</th>
              <th scope="col">Total lag</th>
            </tr>
          </thead>
          <tbody>
            {children.data?.groups.length === 0 && <EmptyRow columns={4}>No consumer group.</EmptyRow>}
            {children.data?.groups.map((group) => (
              <tr key={group.group_id}>
                <td>{group.group_id}</td>
                <td>{group.state}</td>
                <td>{group.members}</td>
                <td>{group.total_lag}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
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
      <form
        class="card form-grid"
        aria-labelledby="browse"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked(asked + 1);
        }}
      >
        <h2 id="browse">Browse records</h2>
        <Field id="browse-partition" label="Partition" hint="Empty: every partition.">
          {(describedBy) => (
            <input
              id="browse-partition"
              type="number"
              min={0}
              aria-describedby={describedBy}
              value={partition}
              onInput={(event) => setPartition(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="browse-offset" label="From offset" hint="Empty: the newest records.">
          {(describedBy) => (
            <input
              id="browse-offset"
              type="number"
              min={0}
              aria-describedby={describedBy}
              value={offset}
              onInput={(event) => setOffset(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="browse-limit" label="How many">
          {() => (
            <input
              id="browse-limit"
              type="number"
              min={1}
              max={100}
              value={limit}
              onInput={(event) => setLimit(Number(event.currentTarget.value))}
            />
          )}
        </Field>
        <div class="form-actions">
          <button type="submit" class="primary" disabled={messages.loading}>
            Read records
          </button>
        </div>
      </form>
      <ErrorNotice error={messages.error} />
      <div
        class="table-wrap"
        tabIndex={0}
        role="region"
        aria-label="Records, oldest first (reads are audited)"
      >
        <table data-testid="messages">
          <caption>Records, oldest first (reads are audited)</caption>
          <thead>
            <tr>
              <th scope="col">Partition</th>
              <th scope="col">Offset</th>
              <th scope="col">Time</th>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {messages.data?.length === 0 && <EmptyRow columns={5}>No record.</EmptyRow>}
            {messages.data?.map((message) => (
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
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
