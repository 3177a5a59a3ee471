import { Admin } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import {
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

const TOPIC_RESOURCE = 2;
const SET = 0;

const cluster = streamingCluster('esc_platformatic', 'pro');
let fixture: StreamingFixture;
let observed: StreamingClusterObservation;
let admin: Admin;

/**
 * @platformatic/kafka negotiates the newest version of every API (Metadata 12, CreateTopics 7,
 * DescribeConfigs 4, …) and speaks only flexible versions for most of them: each call here runs
 * at the top of what the broker advertises.
 */
describe('the embedded broker with @platformatic/kafka (newest versions)', () => {
  beforeAll(async () => {
    fixture = startStreaming({ first: 29180, last: 29199 });
    observed = await fixture.streaming.ensureCluster(cluster);
    await fixture.streaming.ensureUser(cluster, streamingUser('plat', 'plat-secret', '', 'plat-*'));
    admin = new Admin({
      clientId: 'platformatic-test',
      bootstrapBrokers: observed.bootstrapServers,
      tls: { ca: observed.caCertificate },
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'plat', password: 'plat-secret' },
      retries: 1,
    });
  });

  afterAll(async () => {
    await admin?.close();
    await fixture?.cleanup();
  });

  it('creates a topic and gets its partitions, replication factor and topic id back', async () => {
    const [created] = await admin.createTopics({ topics: ['newest'], partitions: 4, replicas: 2 });
    expect(created).toMatchObject({ name: 'newest', partitions: 4, replicas: 2 });
    const stored = fixture.streaming;
    expect((await stored.listTopics(cluster)).find((topic) => topic.name === 'newest')?.partitions).toBe(4);
    expect(await admin.listTopics()).toContain('newest');
  });

  it('reads the cluster and the topic with Metadata v12, topic ids included', async () => {
    const metadata = await admin.metadata({ topics: ['newest'] });
    expect([...metadata.brokers.keys()].sort()).toEqual([0, 1, 2]);
    const topic = metadata.topics.get('newest');
    expect(topic?.partitionsCount).toBe(4);
    expect(topic?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(topic?.id).not.toBe('00000000-0000-0000-0000-000000000000');
  });

  it('describes and alters the topic configs', async () => {
    await admin.incrementalAlterConfigs({
      resources: [
        {
          resourceType: TOPIC_RESOURCE,
          resourceName: 'newest',
          configs: [{ name: 'retention.ms', configOperation: SET, value: '600000' }],
        },
      ],
    });
    const [described] = await admin.describeConfigs({
      resources: [{ resourceType: TOPIC_RESOURCE, resourceName: 'newest' }],
      includeDocumentation: true,
    });
    const retention = described!.configs.find((config) => config.name === 'retention.ms');
    expect(retention).toMatchObject({ value: '600000', configSource: 1 });
    expect(described!.configs.length).toBeGreaterThanOrEqual(30);
  });

  it('describes the log directories and deletes the topic', async () => {
    const dirs = await admin.describeLogDirs({ topics: [{ name: 'newest', partitions: [0, 1, 2, 3] }] });
    expect(dirs[0]!.results[0]!.topics[0]!.partitions).toHaveLength(4);
    await admin.deleteTopics({ topics: ['newest'] });
    expect(await admin.listTopics()).not.toContain('newest');
  });
});
