import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import {
  kafkaClient,
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';

async function pythonHas(module: string): Promise<boolean> {
  try {
    await run(PYTHON, ['-c', `import ${module}`]);
    return true;
  } catch {
    return false;
  }
}

const confluent = await pythonHas('confluent_kafka');
const kafkaPython = await pythonHas('kafka');
if (!kafkaPython)
  console.warn('python3-kafka is not installed: the kafka-python admin test of the embedded broker SKIPS');
if (!confluent)
  console.warn('python3-confluent-kafka is not installed: the AdminClient tests of the embedded broker SKIP');

/**
 * The admin flows of Apache Kafka's tools through librdkafka's AdminClient (Debian's
 * python3-confluent-kafka): list, describe, alter and delete, each against what the broker holds.
 */
const ADMIN_SCRIPT = String.raw`
import json, sys
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, NewPartitions, ConfigResource

conf = json.loads(sys.argv[1])
step = sys.argv[2]
admin = AdminClient(conf)

def wait(futures):
    return {key: future.result(timeout=20) for key, future in futures.items()}

def configs_of(topic):
    resource = ConfigResource('topic', topic)
    entries = wait(admin.describe_configs([resource]))[resource]
    return {name: {'value': entry.value, 'source': int(entry.source), 'default': entry.is_default}
            for name, entry in entries.items()}

out = {}
if step == 'create':
    wait(admin.create_topics([NewTopic('admin-made', 3, 1, config={'retention.ms': '3600000'})]))
    metadata = admin.list_topics(timeout=20)
    out['topics'] = sorted(metadata.topics)
    out['partitions'] = len(metadata.topics['admin-made'].partitions)
    out['brokers'] = sorted(metadata.brokers)
elif step == 'describe':
    out['configs'] = configs_of('admin-made')
elif step == 'alter':
    resource = ConfigResource('topic', 'admin-made', set_config={'retention.ms': '7200000', 'cleanup.policy': 'compact',
                                                                 'flush.messages': '9223372036854775807', 'flush.ms': '1000'})
    wait(admin.alter_configs([resource]))
    out['configs'] = configs_of('admin-made')
elif step == 'refuse':
    try:
        wait(admin.alter_configs([ConfigResource('topic', 'admin-made', set_config={'segment.bytes': '1000'})]))
        out['error'] = None
    except Exception as error:
        out['error'] = str(error)
elif step == 'grow':
    wait(admin.create_partitions([NewPartitions('admin-made', 5)]))
    out['partitions'] = len(admin.list_topics(timeout=20).topics['admin-made'].partitions)
elif step == 'delete':
    wait(admin.delete_topics(['admin-made']))
    out['topics'] = sorted(admin.list_topics(timeout=20).topics)
print(json.dumps(out))
`;

const cluster = streamingCluster('esc_admin', 'pro');
let fixture: StreamingFixture;
let observed: StreamingClusterObservation;
let caFile: string;

async function admin(step: string): Promise<Record<string, unknown>> {
  const conf = {
    'bootstrap.servers': observed.bootstrapServers.join(','),
    'security.protocol': 'SASL_SSL',
    'sasl.mechanisms': 'SCRAM-SHA-512',
    'sasl.username': 'ops',
    'sasl.password': 'ops-secret',
    'ssl.ca.location': caFile,
  };
  const { stdout } = await run(PYTHON, ['-c', ADMIN_SCRIPT, JSON.stringify(conf), step], { timeout: 30_000 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/**
 * ACLs as a Kafka admin tool manages them, through kafka-python's admin client: `grant` creates one
 * for the user ops on topics under `audit-`, `revoke` deletes what matches it, and each answers
 * what DescribeAcls then lists (or the error class a refusal raises).
 */
const ACLS_SCRIPT = String.raw`
import json, sys
from kafka.admin import (KafkaAdminClient, ACL, ACLFilter, ACLOperation, ACLPermissionType,
    ResourcePattern, ResourcePatternFilter, ResourceType, ACLResourcePatternType)
bootstrap, ca_file, user, step = sys.argv[1:5]
admin = KafkaAdminClient(bootstrap_servers=bootstrap.split(','), security_protocol='SASL_SSL',
    sasl_mechanism='SCRAM-SHA-512', sasl_plain_username=user, sasl_plain_password=user + '-secret',
    ssl_cafile=ca_file, ssl_check_hostname=False)
audit = ACLFilter(principal=None, host='*', operation=ACLOperation.ANY, permission_type=ACLPermissionType.ANY,
    resource_pattern=ResourcePatternFilter(ResourceType.TOPIC, 'audit-', ACLResourcePatternType.PREFIXED))
def names(acls):
    return sorted(f'{a.principal} {a.operation.name} {a.permission_type.name} {a.resource_pattern.resource_name}'
                  for a in acls)
out = {}
try:
    if step == 'grant':
        created = admin.create_acls([ACL('User:ops', '*', ACLOperation.READ, ACLPermissionType.ALLOW,
            ResourcePattern(ResourceType.TOPIC, 'audit-', ACLResourcePatternType.PREFIXED))])
        for _, error in created['failed']:
            raise error
    elif step == 'revoke':
        [(_, deleted, error)] = admin.delete_acls([audit])
        if error is not None and error.errno != 0:
            raise error
        out['deleted'] = names(entry for entry, _ in deleted)
    acls, _ = admin.describe_acls(audit)
    out['described'] = names(acls)
except Exception as error:
    out['error'] = type(error).__name__
print(json.dumps(out))
`;

async function aclsThroughKafkaPython(user: string, step: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    PYTHON,
    ['-c', ACLS_SCRIPT, observed.bootstrapServers.join(','), caFile, user, step],
    { timeout: 30_000 },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe.skipIf(!confluent)(
  'the embedded broker with an AdminClient (librdkafka through confluent-kafka)',
  () => {
    beforeAll(async () => {
      fixture = startStreaming({ first: 29160, last: 29179 });
      observed = await fixture.streaming.ensureCluster(cluster);
      caFile = path.join(fixture.dir, 'ca-for-admin.crt');
      fs.writeFileSync(caFile, observed.caCertificate);
      await fixture.streaming.ensureUser(cluster, streamingUser('ops', 'ops-secret', '', 'ops-*'));
      const guard = streamingUser('guard', 'guard-secret', 'guard-', 'guard-*');
      await fixture.streaming.ensureUser(cluster, {
        ...guard,
        acls: [
          ...guard.acls,
          {
            resourceType: 'cluster',
            patternType: 'literal',
            name: 'kafka-cluster',
            operations: ['alter'],
            permission: 'allow',
          },
        ],
      });
    });

    afterAll(async () => {
      await fixture?.cleanup();
    });

    it('creates a topic and lists it on the three brokers of a pro cluster', async () => {
      const created = await admin('create');
      expect(created.topics).toContain('admin-made');
      expect(created.partitions).toBe(3);
      expect(created.brokers).toEqual([0, 1, 2]);
      const stored = (await fixture.streaming.listTopics(cluster)).find(
        (topic) => topic.name === 'admin-made',
      );
      expect(stored).toMatchObject({ partitions: 3, retentionMs: 3_600_000 });
    }, 60_000);

    it("describes every topic config with its source: the topic's own and Kafka's defaults", async () => {
      const { configs } = (await admin('describe')) as {
        configs: Record<string, { value: string; source: number; default: boolean }>;
      };
      expect(configs['retention.ms']).toMatchObject({ value: '3600000', source: 1 });
      expect(configs['cleanup.policy']).toMatchObject({ value: 'delete', source: 5, default: true });
      expect(configs['max.message.bytes']).toMatchObject({ value: '1048588', source: 5 });
      // Every append fsynced before its answer: the platform's setting, not Kafka's default.
      expect(configs['flush.messages']).toMatchObject({ value: '1', source: 4 });
      expect(Object.keys(configs).length).toBeGreaterThanOrEqual(30);
    }, 60_000);

    it('alters retention, cleanup policy and flush, which the topic then has', async () => {
      const { configs } = (await admin('alter')) as { configs: Record<string, { value: string }> };
      expect(configs['retention.ms']!.value).toBe('7200000');
      expect(configs['cleanup.policy']!.value).toBe('compact');
      expect(configs['flush.messages']!.value).toBe('9223372036854775807');
      expect(configs['flush.ms']!.value).toBe('1000');
      const stored = (await fixture.streaming.listTopics(cluster)).find(
        (topic) => topic.name === 'admin-made',
      );
      expect(stored).toMatchObject({ retentionMs: 7_200_000, cleanupPolicy: 'compact' });
    }, 60_000);

    it('refuses a config the platform fixes with POLICY_VIOLATION', async () => {
      const { error } = await admin('refuse');
      expect(String(error)).toMatch(/POLICY_VIOLATION|segment\.bytes/);
    }, 60_000);

    it('lists a group once though every broker is asked, and deletes records below an offset', async () => {
      const client = kafkaClient(observed.bootstrapServers, observed.caCertificate, 'ops', 'ops-secret');
      const producer = client.producer();
      await producer.connect();
      await producer.send({
        topic: 'admin-made',
        messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, value: `record-${i}` })),
      });
      await producer.disconnect();
      const consumer = client.consumer({ groupId: 'ops-readers' });
      await consumer.connect();
      await consumer.subscribe({ topic: 'admin-made', fromBeginning: true });
      let seen = 0;
      const consumed = new Promise<void>((resolve) => {
        void consumer.run({
          eachMessage: async () => {
            if (++seen === 10) resolve();
          },
        });
      });
      await consumed;
      const kafkaAdmin = client.admin();
      await kafkaAdmin.connect();
      const { groups } = await kafkaAdmin.listGroups();
      expect(groups.filter((group) => group.groupId === 'ops-readers')).toHaveLength(1);
      await consumer.disconnect();
      await kafkaAdmin.deleteTopicRecords({
        topic: 'admin-made',
        partitions: [{ partition: 0, offset: '4' }],
      });
      const offsets = await kafkaAdmin.fetchTopicOffsets('admin-made');
      expect(offsets.find((entry) => entry.partition === 0)).toMatchObject({ low: '4', high: '10' });
      await kafkaAdmin.disconnect();
    }, 60_000);

    it.skipIf(!kafkaPython)(
      'lists and describes topics through kafka-python',
      async () => {
        const script = String.raw`
import json, sys
from kafka.admin import KafkaAdminClient, ConfigResource, ConfigResourceType
admin = KafkaAdminClient(bootstrap_servers=sys.argv[1].split(','), security_protocol='SASL_SSL',
    sasl_mechanism='SCRAM-SHA-512', sasl_plain_username='ops', sasl_plain_password='ops-secret',
    ssl_cafile=sys.argv[2], ssl_check_hostname=False)
described = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, 'admin-made')])
entries = described[0].resources[0][4]
print(json.dumps({'topics': admin.list_topics(), 'configs': {entry[0]: entry[1] for entry in entries}}))
`;
        const { stdout } = await run(PYTHON, ['-c', script, observed.bootstrapServers.join(','), caFile], {
          timeout: 30_000,
        });
        const answer = JSON.parse(stdout) as { topics: string[]; configs: Record<string, string> };
        expect(answer.topics).toContain('admin-made');
        expect(answer.configs['retention.ms']).toBe('7200000');
      },
      60_000,
    );

    it.skipIf(!kafkaPython)(
      "lets a user with ALTER on the cluster create, describe and delete ACLs through kafka-python, kept as the users' own",
      async () => {
        expect(await aclsThroughKafkaPython('guard', 'grant')).toEqual({
          described: ['User:ops READ ALLOW audit-'],
        });
        const granted = (await fixture.streaming.listUserAcls!(cluster)).find((user) => user.name === 'ops');
        expect(granted!.acls).toContainEqual({
          resourceType: 'topic',
          patternType: 'prefixed',
          name: 'audit-',
          operations: ['read'],
          permission: 'allow',
        });
        expect(await aclsThroughKafkaPython('ops', 'revoke')).toEqual({
          error: 'ClusterAuthorizationFailedError',
        });
        expect(await aclsThroughKafkaPython('guard', 'revoke')).toEqual({
          deleted: ['User:ops READ ALLOW audit-'],
          described: [],
        });
        const revoked = (await fixture.streaming.listUserAcls!(cluster)).find((user) => user.name === 'ops');
        expect(revoked!.acls.some((acl) => acl.name === 'audit-')).toBe(false);
      },
      60_000,
    );

    it.skipIf(!kafkaPython)(
      'refuses to list or create ACLs for a user without rights on the cluster with CLUSTER_AUTHORIZATION_FAILED',
      async () => {
        expect(await aclsThroughKafkaPython('ops', 'describe')).toEqual({
          error: 'ClusterAuthorizationFailedError',
        });
        expect(await aclsThroughKafkaPython('ops', 'grant')).toEqual({
          error: 'ClusterAuthorizationFailedError',
        });
        const kept = await fixture.streaming.listUserAcls!(cluster);
        expect(JSON.stringify(kept)).not.toContain('audit-');
      },
      60_000,
    );

    it('grows the topic and then deletes it', async () => {
      expect((await admin('grow')).partitions).toBe(5);
      expect((await admin('delete')).topics).not.toContain('admin-made');
      expect((await fixture.streaming.listTopics(cluster)).map((topic) => topic.name)).not.toContain(
        'admin-made',
      );
    }, 60_000);
  },
);
