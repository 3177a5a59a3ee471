/**
 * `streaming`: event-streaming clusters, their topics, users and consumer groups, and the
 * configuration a Kafka client needs to reach one. A `<cluster>` argument is the cluster's id
 * (`esc_…`) or its name, which is unique within an organization.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { CloudplaneError, dataOf, type CloudplaneClient, type paths } from '../../sdk/index.js';
import { ClientError, UsageError } from '../failures.js';
import {
  Invocation,
  timeoutOf,
  withExamples,
  withWait,
  type ClientEnvironment,
  type WaitFlags,
} from '../invocation.js';
import { renderFields, renderTable } from '../output.js';
import type { Colors } from '../terminal.js';
import { untilGone, waitFor } from '../waiting.js';

type Cluster =
  paths['/v1/streaming/clusters/{id}']['get']['responses'][200]['content']['application/json']['data'];
type UserBody = NonNullable<
  paths['/v1/streaming/clusters/{id}/users']['post']['requestBody']
>['content']['application/json'];
type Acl = NonNullable<UserBody['acls']>[number];
type GroupLag =
  paths['/v1/streaming/clusters/{id}/consumer-groups/{group}/lag']['get']['responses'][200]['content']['application/json']['data'];

const TIERS = ['starter', 'pro', 'enterprise'] as const;
const CLEANUP_POLICIES = ['delete', 'compact'] as const;
const CLIENT_FORMATS = ['kafkajs', 'librdkafka', 'java'] as const;
type ClientFormat = (typeof CLIENT_FORMATS)[number];
/** The first of the platform's default regions; a platform configured otherwise names its own in a 422. */
const DEFAULT_REGION = 'us-east-1';
const CLUSTER_ID = /^esc_[0-9a-f]{12}$/;
const PAGE_SIZE = 100;

const ACL_RESOURCE_TYPES: readonly Acl['resource_type'][] = ['topic', 'group'];
const ACL_PATTERN_TYPES: readonly Acl['pattern_type'][] = ['literal', 'prefixed'];
const ACL_OPERATIONS: readonly Acl['operations'][number][] = [
  'read',
  'write',
  'describe',
  'create',
  'delete',
  'alter',
];
const ACL_PERMISSIONS: readonly Acl['permission'][] = ['allow', 'deny'];

type TopicMessage =
  paths['/v1/streaming/clusters/{id}/topics/{name}/messages']['get']['responses'][200]['content']['application/json']['data'][number];

/** How often `topics tail --follow` asks for new records. */
const FOLLOW_INTERVAL_MS = 1000;

/** A key or value as shown: text as it is, bytes that are not UTF-8 marked as base64. */
const shownBytes = (text: string | null, record: TopicMessage) =>
  text === null ? '' : record.encoding === 'base64' ? `base64:${text}` : text;

function renderRecords(records: readonly TopicMessage[]): string {
  return renderTable(records, [
    { header: 'partition', value: (row) => row.partition },
    { header: 'offset', value: (row) => row.offset },
    { header: 'timestamp', value: (row) => row.timestamp },
    { header: 'key', value: (row) => shownBytes(row.key, row) },
    { header: 'value', value: (row) => shownBytes(row.value, row) },
  ]);
}

/** One followed record per line: `partition/offset  timestamp  key  value`. */
const recordLine = (record: TopicMessage) =>
  `${record.partition}/${record.offset}  ${record.timestamp}  ${shownBytes(record.key, record) || '-'}  ${shownBytes(record.value, record)}\n`;

const clusterPath = (id: string) => ({ params: { path: { id } } });
/** A topic or a user of a cluster, by its Kafka name. */
const namedPath = (id: string, name: string) => ({ params: { path: { id, name } } });
const groupPath = (id: string, group: string) => ({ params: { path: { id, group } } });

function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number from 0');
  return Number(value);
}

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('expected a whole number from 1');
  return Number(value);
}

const oneOf = <T extends string>(allowed: readonly T[], value: string | undefined, what: string): T => {
  if (!(allowed as readonly string[]).includes(value ?? '')) {
    throw new InvalidArgumentError(
      `${what} must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`,
    );
  }
  return value as T;
};

/**
 * An ACL as `--acl` takes it: `resource_type:pattern_type:name:operations:permission`, e.g.
 * `topic:prefixed:orders:read,write:allow`.
 */
function parseAcl(text: string): Acl {
  const parts = text.split(':');
  if (parts.length !== 5 || parts[2] === '') {
    throw new InvalidArgumentError(
      `${JSON.stringify(text)} is not type:pattern:name:operations:permission (e.g. topic:prefixed:orders:read,write:allow)`,
    );
  }
  const [resourceType, patternType, name, operations, permission] = parts;
  return {
    resource_type: oneOf(ACL_RESOURCE_TYPES, resourceType, 'the resource type'),
    pattern_type: oneOf(ACL_PATTERN_TYPES, patternType, 'the pattern type'),
    name: name!,
    operations: operations!.split(',').map((operation) => oneOf(ACL_OPERATIONS, operation, 'an operation')),
    permission: oneOf(ACL_PERMISSIONS, permission, 'the permission'),
  };
}

const collectAcl = (value: string, previous: Acl[] = []) => [...previous, parseAcl(value)];

/** The cluster's id: the argument itself when it is one, else the id of the cluster of that name. */
async function clusterIdOf(api: CloudplaneClient, cluster: string): Promise<string> {
  if (CLUSTER_ID.test(cluster)) return cluster;
  for (let page = 1; ; page++) {
    const rows = dataOf(
      await api.GET('/v1/streaming/clusters', { params: { query: { page, per_page: PAGE_SIZE } } }),
    );
    const found = rows.find((row) => row.name === cluster);
    if (found?.id) return found.id;
    if (rows.length < PAGE_SIZE) break;
  }
  throw new ClientError(`no streaming cluster named ${cluster} (see cloudplane streaming clusters list)`);
}

/** A user with its password; a refusal says which scope revealing it needs. */
async function revealedUser(api: CloudplaneClient, clusterId: string, name: string) {
  try {
    return dataOf(
      await api.GET('/v1/streaming/clusters/{id}/users/{name}', {
        params: { path: { id: clusterId, name }, query: { reveal_password: true } },
      }),
    );
  } catch (error) {
    if (error instanceof CloudplaneError && error.status === 403) {
      throw new CloudplaneError(
        error.status,
        error.code,
        `${error.message}: revealing a user's password needs the streaming:write scope`,
        error.requestId,
        error.details,
      );
    }
    throw error;
  }
}

/** What a client needs to reach a cluster as one of its users. */
interface ClientConnection {
  bootstrapServers: readonly string[];
  username: string;
  password: string;
  /** Where the cluster's CA certificate (PEM) was written. */
  caFile: string;
}

/** A JAAS option value: quoted, with its quotes and backslashes escaped. */
const jaasQuoted = (value: string) => `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
/** A Java properties value: backslashes are escapes there. */
const javaValue = (value: string) => value.replace(/\\/g, '\\\\');

/**
 * A ready client configuration: a kafkajs snippet, librdkafka properties (`kcat -F file`), or
 * Java client properties; all SASL_SSL with SCRAM-SHA-512, trusting the CA in `caFile`.
 */
function clientConfiguration(format: ClientFormat, connection: ClientConnection): string {
  const { bootstrapServers, username, password, caFile } = connection;
  switch (format) {
    case 'kafkajs':
      return [
        "import fs from 'node:fs';",
        "import { Kafka } from 'kafkajs';",
        '',
        'const kafka = new Kafka({',
        `  brokers: ${JSON.stringify(bootstrapServers)},`,
        `  ssl: { ca: [fs.readFileSync(${JSON.stringify(caFile)}, 'utf8')] },`,
        `  sasl: { mechanism: 'scram-sha-512', username: ${JSON.stringify(username)}, password: ${JSON.stringify(password)} },`,
        '});',
        '',
      ].join('\n');
    case 'librdkafka':
      return [
        `bootstrap.servers=${bootstrapServers.join(',')}`,
        'security.protocol=SASL_SSL',
        'sasl.mechanisms=SCRAM-SHA-512',
        `sasl.username=${username}`,
        `sasl.password=${password}`,
        `ssl.ca.location=${caFile}`,
        '',
      ].join('\n');
    case 'java':
      return [
        `bootstrap.servers=${bootstrapServers.join(',')}`,
        'security.protocol=SASL_SSL',
        'sasl.mechanism=SCRAM-SHA-512',
        `sasl.jaas.config=${javaValue(
          `org.apache.kafka.common.security.scram.ScramLoginModule required username=${jaasQuoted(username)} password=${jaasQuoted(password)};`,
        )}`,
        'ssl.truststore.type=PEM',
        `ssl.truststore.location=${javaValue(caFile)}`,
        '',
      ].join('\n');
  }
}

const bootstrapOf = (cluster: Cluster) => cluster.bootstrap_servers ?? [];

function clusterCommands(environment: ClientEnvironment): Command {
  const clusters = new Command('clusters').description('event-streaming clusters');

  withExamples(
    withWait(
      clusters
        .command('create')
        .description('create a cluster')
        .argument('<name>')
        .addOption(new Option('--tier <tier>', 'its size and price').choices(TIERS).default('starter'))
        .option('--region <region>', "one of the platform's regions", DEFAULT_REGION),
      'it is running',
    ).action(
      async (name: string, flags: WaitFlags & { tier: Cluster['tier']; region: string }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const created = dataOf(
          await api.POST('/v1/streaming/clusters', {
            body: { name, tier: flags.tier, region: flags.region },
          }),
        );
        const cluster = flags.wait
          ? await waitFor<Cluster>({
              terminal: run.terminal,
              what: `streaming cluster ${name}`,
              timeoutMs: timeoutOf(flags),
              async poll() {
                const current = dataOf(
                  await api.GET('/v1/streaming/clusters/{id}', clusterPath(created.id!)),
                );
                if (current.status === 'running') return { state: 'done', value: current, status: 'running' };
                if (current.status === 'error')
                  return { state: 'failed', message: current.message ?? 'error' };
                return { state: 'pending', status: current.message ?? current.status ?? 'provisioning' };
              },
            })
          : created;
        run.say(cluster, `Created streaming cluster ${cluster.id} (${cluster.tier}, ${cluster.status})`);
      },
    ),
    [
      'cloudplane streaming clusters create events --wait',
      'cloudplane streaming clusters create events --tier pro --region eu-west-1',
    ],
  );

  withExamples(
    clusters
      .command('list')
      .description("list the organization's clusters")
      .action(async (_flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const rows = dataOf(await run.api().GET('/v1/streaming/clusters'));
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'id', value: (row) => row.id },
            { header: 'name', value: (row) => row.name },
            { header: 'tier', value: (row) => row.tier },
            { header: 'region', value: (row) => row.region },
            { header: 'status', value: (row) => row.status },
            { header: 'brokers', value: (row) => row.brokers },
            { header: 'bootstrap', value: bootstrapOf },
          ]),
        );
      }),
    ['cloudplane streaming clusters list', 'cloudplane streaming clusters list -o json'],
  );

  withExamples(
    clusters
      .command('get')
      .description('show a cluster: its limits, usage, URLs and price')
      .argument('<cluster>', 'its id or name')
      .action(async (cluster: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const shown = dataOf(
          await api.GET('/v1/streaming/clusters/{id}', clusterPath(await clusterIdOf(api, cluster))),
        );
        const { limits, usage, ...rest } = shown;
        run.print(shown, () =>
          renderFields(
            Object.entries({
              ...rest,
              bootstrap_servers: bootstrapOf(shown),
              storage: `${usage?.storage_bytes ?? 0} bytes of ${limits?.storage_gb ?? 'unlimited'} GB`,
              partitions: `${usage?.partitions ?? 0} of ${limits?.partitions ?? 'unlimited'}`,
              retention_max: limits?.retention_max ?? 'custom',
              monthly_price_usd: shown.monthly_price_usd ?? 'by contract',
            }),
          ),
        );
      }),
    ['cloudplane streaming clusters get events', 'cloudplane streaming clusters get esc_0a1b2c3d4e5f'],
  );

  withExamples(
    withWait(
      clusters
        .command('delete')
        .description('delete a cluster with its topics, users and consumer groups')
        .argument('<cluster>', 'its id or name'),
      'it is gone',
    ).action(async (cluster: string, flags: WaitFlags, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const api = run.api();
      const id = await clusterIdOf(api, cluster);
      await api.DELETE('/v1/streaming/clusters/{id}', clusterPath(id));
      if (flags.wait) {
        await waitFor({
          terminal: run.terminal,
          what: `streaming cluster ${cluster}`,
          timeoutMs: timeoutOf(flags),
          poll: untilGone(
            async () => dataOf(await api.GET('/v1/streaming/clusters/{id}', clusterPath(id))).status,
          ),
        });
      }
      run.say({ deleted: id }, `Deleted streaming cluster ${id}`);
    }),
    ['cloudplane streaming clusters delete events --wait'],
  );

  return withExamples(clusters, [
    'cloudplane streaming clusters create events --wait',
    'cloudplane streaming clusters list',
  ]);
}

function topicCommands(environment: ClientEnvironment): Command {
  const topics = new Command('topics').description("a cluster's topics");

  withExamples(
    topics
      .command('create')
      .description('create a topic')
      .argument('<cluster>', 'its id or name')
      .argument('<name>')
      .option('--partitions <n>', 'partitions (default 1)', positiveInteger)
      .option(
        '--replicas <n>',
        'copies of each partition (default: as many as brokers, up to 3)',
        positiveInteger,
      )
      .option(
        '--retention <duration>',
        "how long records are kept: 7d, 12h, 30m, -1 (forever); default the tier's maximum",
      )
      .addOption(
        new Option('--cleanup-policy <policy>', 'delete old records or compact by key').choices(
          CLEANUP_POLICIES,
        ),
      )
      .action(
        async (
          cluster: string,
          name: string,
          flags: {
            partitions?: number;
            replicas?: number;
            retention?: string;
            cleanupPolicy?: 'delete' | 'compact';
          },
          cmd: Command,
        ) => {
          const run = Invocation.of(cmd, environment);
          const api = run.api();
          const body = {
            name,
            ...(flags.partitions !== undefined && { partitions: flags.partitions }),
            ...(flags.replicas !== undefined && { replicas: flags.replicas }),
            ...(flags.retention !== undefined && { retention: flags.retention }),
            ...(flags.cleanupPolicy !== undefined && { cleanup_policy: flags.cleanupPolicy }),
          };
          const topic = dataOf(
            await api.POST('/v1/streaming/clusters/{id}/topics', {
              ...clusterPath(await clusterIdOf(api, cluster)),
              body,
            }),
          );
          run.say(
            topic,
            `Created topic ${topic.name} (${topic.partitions} partitions, retention ${topic.retention})`,
          );
        },
      ),
    [
      'cloudplane streaming topics create events orders --partitions 6 --retention 3d --cleanup-policy delete',
    ],
  );

  withExamples(
    topics
      .command('list')
      .description("list a cluster's topics")
      .argument('<cluster>', 'its id or name')
      .action(async (cluster: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const rows = dataOf(
          await api.GET('/v1/streaming/clusters/{id}/topics', clusterPath(await clusterIdOf(api, cluster))),
        );
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'name', value: (row) => row.name },
            { header: 'partitions', value: (row) => row.partitions },
            { header: 'replicas', value: (row) => row.replicas },
            { header: 'retention', value: (row) => row.retention },
            { header: 'cleanup', value: (row) => row.cleanup_policy },
            { header: 'status', value: (row) => row.status },
            { header: 'created by', value: (row) => row.created_by },
          ]),
        );
      }),
    ['cloudplane streaming topics list events'],
  );

  withExamples(
    topics
      .command('get')
      .description('show a topic and its partitions as the brokers have them')
      .argument('<cluster>', 'its id or name')
      .argument('<name>')
      .action(async (cluster: string, name: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const topic = dataOf(
          await api.GET(
            '/v1/streaming/clusters/{id}/topics/{name}',
            namedPath(await clusterIdOf(api, cluster), name),
          ),
        );
        const { partition_details: partitions = [], ...fields } = topic;
        run.print(
          topic,
          () =>
            `${renderFields(Object.entries(fields))}\n${renderTable(partitions, [
              { header: 'partition', value: (row) => row.partition },
              { header: 'leader', value: (row) => row.leader },
              { header: 'start offset', value: (row) => row.log_start_offset },
              { header: 'end offset', value: (row) => row.log_end_offset },
              { header: 'size bytes', value: (row) => row.size_bytes },
            ])}`,
        );
      }),
    ['cloudplane streaming topics get events orders'],
  );

  withExamples(
    topics
      .command('update')
      .description('change a topic: partitions only grow, retention stays within the tier')
      .argument('<cluster>', 'its id or name')
      .argument('<name>')
      .option('--partitions <n>', 'the new partition count (more than now)', positiveInteger)
      .option('--retention <duration>', '7d, 12h, 30m, -1 (forever)')
      .addOption(new Option('--cleanup-policy <policy>', 'delete or compact').choices(CLEANUP_POLICIES))
      .action(
        async (
          cluster: string,
          name: string,
          flags: { partitions?: number; retention?: string; cleanupPolicy?: 'delete' | 'compact' },
          cmd: Command,
        ) => {
          const body = {
            ...(flags.partitions !== undefined && { partitions: flags.partitions }),
            ...(flags.retention !== undefined && { retention: flags.retention }),
            ...(flags.cleanupPolicy !== undefined && { cleanup_policy: flags.cleanupPolicy }),
          };
          if (Object.keys(body).length === 0) {
            throw new UsageError('nothing to change: pass --partitions, --retention or --cleanup-policy');
          }
          const run = Invocation.of(cmd, environment);
          const api = run.api();
          const topic = dataOf(
            await api.PATCH('/v1/streaming/clusters/{id}/topics/{name}', {
              ...namedPath(await clusterIdOf(api, cluster), name),
              body,
            }),
          );
          run.say(
            topic,
            `Updated topic ${topic.name} (${topic.partitions} partitions, retention ${topic.retention})`,
          );
        },
      ),
    [
      'cloudplane streaming topics update events orders --partitions 12',
      'cloudplane streaming topics update events orders --retention 1d',
    ],
  );

  withExamples(
    topics
      .command('delete')
      .description('delete a topic and its records')
      .argument('<cluster>', 'its id or name')
      .argument('<name>')
      .action(async (cluster: string, name: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        await api.DELETE(
          '/v1/streaming/clusters/{id}/topics/{name}',
          namedPath(await clusterIdOf(api, cluster), name),
        );
        run.say({ deleted: name }, `Deleted topic ${name}`);
      }),
    ['cloudplane streaming topics delete events orders'],
  );

  withExamples(
    topics
      .command('tail')
      .description(
        "print a topic's newest records (read by the platform, audited); --follow keeps printing new ones",
      )
      .argument('<cluster>', 'its id or name')
      .argument('<name>')
      .option('--partition <n>', 'one partition (default: all)', nonNegativeInteger)
      .option('--offset <n>', 'from this offset on instead of the newest records', nonNegativeInteger)
      .option('--limit <n>', 'how many records (at most 100)', positiveInteger, 20)
      .option('-f, --follow', 'keep asking for new records every second until interrupted')
      .action(
        async (
          cluster: string,
          name: string,
          flags: { partition?: number; offset?: number; limit: number; follow?: boolean },
          cmd: Command,
        ) => {
          const run = Invocation.of(cmd, environment);
          const api = run.api();
          const id = await clusterIdOf(api, cluster);
          const read = async (query: { partition?: number; offset?: number }) =>
            dataOf(
              await api.GET('/v1/streaming/clusters/{id}/topics/{name}/messages', {
                params: { path: { id, name }, query: { ...query, limit: flags.limit } },
              }),
            );
          const topic = flags.follow
            ? dataOf(await api.GET('/v1/streaming/clusters/{id}/topics/{name}', namedPath(id, name)))
            : undefined;
          const first = await read({
            ...(flags.partition !== undefined && { partition: flags.partition }),
            ...(flags.offset !== undefined && { offset: flags.offset }),
          });
          if (!topic) {
            run.print(first, () => renderRecords(first));
            return;
          }
          // Following: one line (or JSON document) per record, asked per partition from its next
          // offset; the log ends are read before the first records, so none produced between is missed.
          const emit = (records: readonly TopicMessage[]) => {
            if (records.length === 0) return;
            run.terminal.out(
              records
                .map((record) =>
                  run.format === 'table' ? recordLine(record) : `${JSON.stringify(record)}\n`,
                )
                .join(''),
            );
          };
          emit(first);
          const partitions =
            flags.partition !== undefined ? [flags.partition] : [...Array(topic.partitions).keys()];
          const next = new Map<number, number>();
          for (const partition of partitions) {
            const end = topic.partition_details?.find((each) => each.partition === partition)?.log_end_offset;
            const seen = first.filter((record) => record.partition === partition).at(-1);
            next.set(partition, seen ? seen.offset + 1 : (flags.offset ?? end ?? 0));
          }
          for (;;) {
            await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
            for (const partition of partitions) {
              const records = await read({ partition, offset: next.get(partition)! });
              emit(records);
              const last = records.at(-1);
              if (last) next.set(partition, last.offset + 1);
            }
          }
        },
      ),
    [
      'cloudplane streaming topics tail events orders',
      'cloudplane streaming topics tail events orders --partition 0 --offset 100 --limit 50',
      'cloudplane streaming topics tail events orders --follow',
    ],
  );

  return withExamples(topics, [
    'cloudplane streaming topics create events orders --partitions 3',
    'cloudplane streaming topics get events orders',
  ]);
}

function userCommands(environment: ClientEnvironment): Command {
  const users = new Command('users').description("a cluster's users: SCRAM-SHA-512 credentials and ACLs");
  const aclText = (acls: readonly Acl[] = []) =>
    acls.map(
      (acl) =>
        `${acl.resource_type}:${acl.pattern_type}:${acl.name}:${acl.operations.join(',')}:${acl.permission}`,
    );

  withExamples(
    users
      .command('create')
      .description('create a user; its password is shown only now')
      .argument('<cluster>', 'its id or name')
      .argument('<name>')
      .option('--password-stdin', 'read the password from stdin (default: one is generated)')
      .option('--consumer-group <group>', 'a group id, or a prefix ending in *, the user may consume as')
      .option(
        '--acl <acl>',
        'type:pattern:name:operations:permission, e.g. topic:prefixed:orders:read,write:allow (repeatable)',
        collectAcl,
      )
      .action(
        async (
          cluster: string,
          name: string,
          flags: { passwordStdin?: boolean; consumerGroup?: string; acl?: Acl[] },
          cmd: Command,
        ) => {
          const run = Invocation.of(cmd, environment);
          const api = run.api();
          const password = flags.passwordStdin
            ? (await run.terminal.readStdin()).replace(/\r?\n$/, '')
            : undefined;
          const body = {
            name,
            ...(password !== undefined && { password }),
            ...(flags.consumerGroup !== undefined && { consumer_group: flags.consumerGroup }),
            ...(flags.acl !== undefined && { acls: flags.acl }),
          };
          const user = dataOf(
            await api.POST('/v1/streaming/clusters/{id}/users', {
              ...clusterPath(await clusterIdOf(api, cluster)),
              body,
            }),
          );
          run.say(
            user,
            `Created user ${user.name}. Its password is shown only now; it will not be shown again:\n${user.password}`,
          );
        },
      ),
    [
      'cloudplane streaming users create events billing --consumer-group "billing*" --acl topic:prefixed:orders:read,describe:allow',
      'cloudplane streaming users create events reporting --password-stdin < password.txt',
    ],
  );

  withExamples(
    users
      .command('list')
      .description("list a cluster's users (never their passwords)")
      .argument('<cluster>', 'its id or name')
      .action(async (cluster: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const rows = dataOf(
          await api.GET('/v1/streaming/clusters/{id}/users', clusterPath(await clusterIdOf(api, cluster))),
        );
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'name', value: (row) => row.name },
            { header: 'mechanism', value: (row) => row.mechanism },
            { header: 'consumer group', value: (row) => row.consumer_group },
            { header: 'status', value: (row) => row.status },
            { header: 'acls', value: (row) => aclText(row.acls) },
          ]),
        );
      }),
    ['cloudplane streaming users list events'],
  );

  withExamples(
    users
      .command('get')
      .description('show a user; --reveal-password adds its password (needs the streaming:write scope)')
      .argument('<cluster>', 'its id or name')
      .argument('<name>')
      .option('--reveal-password', 'show the password too (audited)')
      .action(async (cluster: string, name: string, flags: { revealPassword?: boolean }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const id = await clusterIdOf(api, cluster);
        const user = flags.revealPassword
          ? await revealedUser(api, id, name)
          : dataOf(await api.GET('/v1/streaming/clusters/{id}/users/{name}', namedPath(id, name)));
        run.print(user, () => renderFields(Object.entries({ ...user, acls: aclText(user.acls) })));
      }),
    [
      'cloudplane streaming users get events billing',
      'cloudplane streaming users get events billing --reveal-password',
    ],
  );

  withExamples(
    users
      .command('delete')
      .description('delete a user; the brokers refuse its credential from then on')
      .argument('<cluster>', 'its id or name')
      .argument('<name>')
      .action(async (cluster: string, name: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        await api.DELETE(
          '/v1/streaming/clusters/{id}/users/{name}',
          namedPath(await clusterIdOf(api, cluster), name),
        );
        run.say({ deleted: name }, `Deleted user ${name}`);
      }),
    ['cloudplane streaming users delete events billing'],
  );

  return withExamples(users, [
    'cloudplane streaming users create events billing --consumer-group "billing*"',
    'cloudplane streaming users get events billing --reveal-password',
  ]);
}

/** The cluster's bootstrap answer, with a CA certificate: a cluster not yet running has none. */
async function bootstrapWithCa(api: CloudplaneClient, clusterId: string, cluster: string) {
  const bootstrap = dataOf(await api.GET('/v1/streaming/clusters/{id}/bootstrap', clusterPath(clusterId)));
  if (!bootstrap.ca_certificate) {
    throw new ClientError(
      `streaming cluster ${cluster} has no CA certificate yet; try again when it is running`,
    );
  }
  return { ...bootstrap, ca_certificate: bootstrap.ca_certificate };
}

function connectionCommands(streaming: Command, environment: ClientEnvironment): void {
  withExamples(
    streaming
      .command('bootstrap')
      .description('how clients reach a cluster: servers, protocol, mechanism (--ca: the CA certificate)')
      .argument('<cluster>', 'its id or name')
      .option('--ca', "print only the cluster's CA certificate (PEM)")
      .action(async (cluster: string, flags: { ca?: boolean }, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const id = await clusterIdOf(api, cluster);
        if (flags.ca) {
          const { ca_certificate } = await bootstrapWithCa(api, id, cluster);
          run.print({ ca_certificate }, () => ca_certificate);
          return;
        }
        const bootstrap = dataOf(await api.GET('/v1/streaming/clusters/{id}/bootstrap', clusterPath(id)));
        run.print(bootstrap, () =>
          renderFields([
            ['bootstrap_servers', bootstrap.bootstrap_servers],
            ['security_protocol', bootstrap.security_protocol],
            ['sasl_mechanism', bootstrap.sasl_mechanism],
            ['ca_certificate', bootstrap.ca_certificate ? '(PEM; --ca prints it)' : 'none yet'],
          ]),
        );
      }),
    [
      'cloudplane streaming bootstrap events',
      'cloudplane streaming bootstrap events --ca -o table > events-ca.pem',
    ],
  );

  withExamples(
    streaming
      .command('credentials')
      .description("print a ready client configuration for a user, writing the cluster's CA beside it")
      .argument('<cluster>', 'its id or name')
      .requiredOption(
        '--user <name>',
        'the cluster user to connect as (its password is revealed: streaming:write scope)',
      )
      .addOption(
        new Option('--format <format>', 'the client it is for').choices(CLIENT_FORMATS).default('librdkafka'),
      )
      .option('--ca-file <path>', 'where to write the CA certificate (default ./<cluster>-ca.pem)')
      .action(
        async (
          cluster: string,
          flags: { user: string; format: ClientFormat; caFile?: string },
          cmd: Command,
        ) => {
          const run = Invocation.of(cmd, environment);
          const api = run.api();
          const id = await clusterIdOf(api, cluster);
          const bootstrap = await bootstrapWithCa(api, id, cluster);
          const user = await revealedUser(api, id, flags.user);
          const caFile = path.resolve(flags.caFile ?? `${cluster}-ca.pem`);
          fs.writeFileSync(caFile, bootstrap.ca_certificate, { mode: 0o644 });
          // A file that existed keeps its mode through writeFileSync; the CA is public, so 0644 either way.
          fs.chmodSync(caFile, 0o644);
          const connection: ClientConnection = {
            bootstrapServers: bootstrap.bootstrap_servers ?? [],
            username: flags.user,
            password: user.password ?? '',
            caFile,
          };
          const configuration = clientConfiguration(flags.format, connection);
          run.print(
            {
              format: flags.format,
              bootstrap_servers: connection.bootstrapServers,
              security_protocol: bootstrap.security_protocol,
              sasl_mechanism: bootstrap.sasl_mechanism,
              username: connection.username,
              password: connection.password,
              ca_file: caFile,
              configuration,
            },
            () => configuration,
          );
        },
      ),
    [
      'cloudplane streaming credentials events --user billing -o table > client.properties && kcat -F client.properties -L',
      'cloudplane streaming credentials events --user billing --format java --ca-file /etc/kafka/events-ca.pem -o table',
      'cloudplane streaming credentials events --user billing --format kafkajs -o table',
    ],
  );
}

const statusColor = (colors: Colors, status: string | undefined) => {
  if (status === 'OK') return colors.green(status);
  if (status === 'WARN') return colors.yellow(status);
  return status === undefined ? '' : colors.red(status);
};

function renderLag(lag: GroupLag, colors: Colors): string {
  const heading = `group ${lag.group_id}: total lag ${lag.total_lag ?? 0}, ${lag.time_lag_seconds ?? 0}s behind, ${statusColor(colors, lag.status)}\n`;
  // The status is the last column: colour codes there do not upset the padding.
  return `${heading}\n${renderTable(lag.partitions ?? [], [
    { header: 'topic', value: (row) => row.topic },
    { header: 'partition', value: (row) => row.partition },
    { header: 'committed', value: (row) => row.committed_offset },
    { header: 'end offset', value: (row) => row.log_end_offset },
    { header: 'lag', value: (row) => row.lag },
    { header: 'time lag s', value: (row) => row.time_lag_seconds },
    { header: 'status', value: (row) => statusColor(colors, row.status) },
  ])}`;
}

function groupCommands(environment: ClientEnvironment): Command {
  const groups = new Command('groups').description("a cluster's consumer groups and their lag");

  withExamples(
    groups
      .command('list')
      .description("list a cluster's consumer groups")
      .argument('<cluster>', 'its id or name')
      .action(async (cluster: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const rows = dataOf(
          await api.GET(
            '/v1/streaming/clusters/{id}/consumer-groups',
            clusterPath(await clusterIdOf(api, cluster)),
          ),
        );
        run.print(rows, () =>
          renderTable(rows, [
            { header: 'group', value: (row) => row.group_id },
            { header: 'state', value: (row) => row.state },
            { header: 'members', value: (row) => row.members },
            { header: 'total lag', value: (row) => row.total_lag },
            { header: 'topics', value: (row) => row.topics },
          ]),
        );
      }),
    ['cloudplane streaming groups list events'],
  );

  withExamples(
    groups
      .command('get')
      .description('show a consumer group and what each member reads')
      .argument('<cluster>', 'its id or name')
      .argument('<group>')
      .action(async (cluster: string, group: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const shown = dataOf(
          await api.GET(
            '/v1/streaming/clusters/{id}/consumer-groups/{group}',
            groupPath(await clusterIdOf(api, cluster), group),
          ),
        );
        const { members = [], ...fields } = shown;
        run.print(
          shown,
          () =>
            `${renderFields(Object.entries(fields))}\n${renderTable(members, [
              { header: 'member', value: (row) => row.member_id },
              { header: 'client', value: (row) => row.client_id },
              { header: 'host', value: (row) => row.host },
              {
                header: 'assignments',
                value: (row) =>
                  (row.assignments ?? []).map(
                    (assignment) => `${assignment.topic}:${(assignment.partitions ?? []).join(',')}`,
                  ),
              },
            ])}`,
        );
      }),
    ['cloudplane streaming groups get events billing-workers'],
  );

  withExamples(
    groups
      .command('lag')
      .description(
        "a consumer group's lag per partition, with its status (OK, WARN, ERR, STOP, STALL); exits 0 when lagging too",
      )
      .argument('<cluster>', 'its id or name')
      .argument('<group>')
      .action(async (cluster: string, group: string, _flags: object, cmd: Command) => {
        const run = Invocation.of(cmd, environment);
        const api = run.api();
        const lag = dataOf(
          await api.GET(
            '/v1/streaming/clusters/{id}/consumer-groups/{group}/lag',
            groupPath(await clusterIdOf(api, cluster), group),
          ),
        );
        run.print(lag, () => renderLag(lag, run.terminal.colors));
      }),
    [
      'cloudplane streaming groups lag events billing-workers',
      'cloudplane streaming groups lag events billing-workers -o json',
    ],
  );

  return withExamples(groups, [
    'cloudplane streaming groups list events',
    'cloudplane streaming groups lag events billing-workers',
  ]);
}

export function streamingCommands(environment: ClientEnvironment): Command {
  const streaming = new Command('streaming').description(
    'event-streaming clusters: topics, users, consumer groups and client configuration',
  );
  streaming.addCommand(clusterCommands(environment));
  streaming.addCommand(topicCommands(environment));
  streaming.addCommand(userCommands(environment));
  connectionCommands(streaming, environment);
  streaming.addCommand(groupCommands(environment));
  return withExamples(streaming, [
    'cloudplane streaming clusters create events --wait',
    'cloudplane streaming topics create events orders --partitions 3',
    'cloudplane streaming users create events billing',
    'cloudplane streaming credentials events --user billing -o table > client.properties',
    'cloudplane streaming groups lag events billing-workers',
  ]);
}
