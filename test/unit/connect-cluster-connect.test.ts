import { describe, expect, it } from 'vitest';
import { connectorAcls } from '../../connect/cluster-access.js';
import { connectClusterUserOf, connectorSpecOf } from '../../connect/cluster-connect.js';
import type { StoredConnector } from '../../connect/connector-store.js';
import type { TargetState } from '../../connect/task-state.js';
import { kafkaUserName } from '../../workloads/kubernetes/strimzi-render.js';

const sink = (targetState: TargetState = 'RUNNING'): StoredConnector => ({
  cluster: 'esc_0123456789ab',
  name: 'orders-sink',
  namespace: 'org-acme',
  targetState,
  generation: 1,
  config: {
    name: 'orders-sink',
    'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
    'tasks.max': '1',
    topics: 'orders,refunds',
    'connection.url': 'jdbc:postgresql://db:5432/shop',
    'connection.password': 'hunter2-but-longer',
  },
});

describe('a connector as the cluster’s Connect workers take it', () => {
  it.each([
    ['RUNNING', 'running'],
    ['PAUSED', 'paused'],
    ['STOPPED', 'stopped'],
  ] as const)('maps the target state %s to spec.state %s', (target, state) => {
    expect(connectorSpecOf(sink(target)).state).toBe(state);
  });

  it('keeps PASSWORD-type values apart from the configuration, and the keys Connect sets itself out', () => {
    expect(connectorSpecOf(sink())).toEqual({
      name: 'orders-sink',
      class: 'io.confluent.connect.jdbc.JdbcSinkConnector',
      tasksMax: 1,
      config: { topics: 'orders,refunds', 'connection.url': 'jdbc:postgresql://db:5432/shop' },
      secrets: { 'connection.password': 'hunter2-but-longer' },
      state: 'running',
    });
  });

  it('gives the PostgreSQL source pgoutput unless its plugin.name says otherwise', () => {
    const capture = (config: Record<string, string>): StoredConnector => ({
      ...sink(),
      config: { 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', ...config },
    });
    expect(connectorSpecOf(capture({})).config['plugin.name']).toBe('pgoutput');
    expect(connectorSpecOf(capture({ 'plugin.name': 'decoderbufs' })).config['plugin.name']).toBe(
      'decoderbufs',
    );
    expect(connectorSpecOf(sink()).config['plugin.name']).toBeUndefined();
  });

  it('lets a sink read its topics and its group, and a source write under its prefix', () => {
    expect(connectorAcls(sink()).map((acl) => [acl.resourceType, acl.name, acl.operations])).toEqual([
      ['topic', 'orders', ['read', 'describe']],
      ['topic', 'refunds', ['read', 'describe']],
      ['group', 'connect-orders-sink', ['read', 'describe', 'delete']],
    ]);
    const source: StoredConnector = {
      ...sink(),
      name: 'shop-cdc',
      config: {
        'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
        'topic.prefix': 'shop',
      },
    };
    expect(connectorAcls(source)).toContainEqual({
      resourceType: 'topic',
      patternType: 'prefixed',
      name: 'shop.',
      operations: ['write', 'describe', 'create'],
      permission: 'allow',
    });
  });

  it('names the workers’ user so that Strimzi takes it as a KafkaUser', () => {
    const name = connectClusterUserOf('esc_0123456789ab');
    expect(name).toMatch(/^cloudplane-connect\.[0-9a-f]{16}$/);
    const cluster = {
      id: 'esc_0123456789ab',
      organization: 'org-acme',
      tier: 'starter' as const,
      limits: { brokers: 1, partitions: 1, storageBytes: 1, retentionMaxMs: 1 },
    };
    expect(kafkaUserName(cluster, name)).toBe(name);
  });
});
